// fusekit/checkpoint/plan.hpp: a declarative mapping between two checkpoint layouts.
//
// A plan is data: groups of rules, each rule a transform from named input tensors to named
// output tensors with their dtypes and shapes. It is built from a model config alone, so it
// can be printed and checked with no weights (--dry-run), inverted (every transform has an
// exact inverse), and lowered to byte pieces (see `lower_plan` in convert.hpp).
#pragma once

#include "fusekit/checkpoint/tensor_spec.hpp"
#include "fusekit/core/status.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fusekit::checkpoint {

enum class Transform {
  rename,           // 1 -> 1, same dtype and shape
  split_rows,       // 1 -> n: consecutive row blocks of the input, in output order
  concat_rows,      // n -> 1: inputs stacked by rows (inverse of split_rows)
  swap_row_halves,  // 1 -> 1: [a; b] -> [b; a] (its own inverse)
  heads_to_parts,   // 1 -> 1: per-head interleaved [h0: p0 p1 p2, h1: ...] -> [p0 all heads; p1 ...; p2 ...]
  parts_to_heads,   // inverse of heads_to_parts
  drop,             // 1 -> 0: a tensor the model recomputes; checked against the recomputation
  recompute,        // 0 -> 1: inverse of drop
};

inline const char* transform_name(Transform t) {
  switch (t) {
    case Transform::rename: return "rename";
    case Transform::split_rows: return "split_rows";
    case Transform::concat_rows: return "concat_rows";
    case Transform::swap_row_halves: return "swap_row_halves";
    case Transform::heads_to_parts: return "heads_to_parts";
    case Transform::parts_to_heads: return "parts_to_heads";
    case Transform::drop: return "drop";
    case Transform::recompute: return "recompute";
  }
  return "?";
}

inline Transform inverse(Transform t) {
  switch (t) {
    case Transform::split_rows: return Transform::concat_rows;
    case Transform::concat_rows: return Transform::split_rows;
    case Transform::heads_to_parts: return Transform::parts_to_heads;
    case Transform::parts_to_heads: return Transform::heads_to_parts;
    case Transform::drop: return Transform::recompute;
    case Transform::recompute: return Transform::drop;
    default: return t;
  }
}

// Rotary inverse frequencies, 1 / theta^(2i / 2n) for i < n, in fp32: what `drop` checks (bit
// for bit) and `recompute` writes. The only recomputed tensor MiniMax-H3 carries (`rope.inv_freq`).
struct RopeInvFreq {
  double theta = 10000.0;
  std::int64_t count = 16;

  // torch's float32 formula, 1.0 / (theta ** (torch.arange(0, 2n, 2).float() / 2n)), step by
  // step: an fp32 exponent, an fp32 power, an fp32 reciprocal. The power is taken in double and
  // rounded once: the correctly rounded fp32 power (checked against quad precision over 0.9 M
  // (theta, n, i)); std::pow(float, float) (glibc's powf) is an ulp off for some 0.06 % of them.
  float value(std::int64_t i) const {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(2 * count);
    const float power =
        static_cast<float>(std::pow(static_cast<double>(static_cast<float>(theta)), static_cast<double>(exponent)));
    return 1.0f / power;
  }
};

struct Rule {
  Transform transform = Transform::rename;
  std::vector<TensorSpec> inputs, outputs;
  std::int64_t heads = 0, parts = 0;  // heads_to_parts / parts_to_heads only
  std::optional<RopeInvFreq> recipe;  // drop / recompute only

  static Rule of(Transform t, std::vector<TensorSpec> in, std::vector<TensorSpec> out) {
    Rule r;
    r.transform = t;
    r.inputs = std::move(in);
    r.outputs = std::move(out);
    return r;
  }
};

struct Group {
  std::string name;
  std::vector<Rule> rules;
};

struct Plan {
  std::string from, to;  // layout names, for messages and reports
  std::vector<Group> groups;

  std::vector<const TensorSpec*> inputs() const { return collect(&Rule::inputs); }
  std::vector<const TensorSpec*> outputs() const { return collect(&Rule::outputs); }

 private:
  std::vector<const TensorSpec*> collect(std::vector<TensorSpec> Rule::*side) const {
    std::vector<const TensorSpec*> all;
    for (const auto& g : groups)
      for (const auto& r : g.rules)
        for (const auto& t : r.*side) all.push_back(&t);
    return all;
  }
};

inline Plan inverse(const Plan& p) {
  Plan inv{p.to, p.from, {}};
  for (const auto& g : p.groups) {
    Group ig{g.name, {}};
    for (const auto& r : g.rules) {
      Rule ir = r;
      ir.transform = inverse(r.transform);
      std::swap(ir.inputs, ir.outputs);
      ig.rules.push_back(std::move(ir));
    }
    inv.groups.push_back(std::move(ig));
  }
  return inv;
}

namespace detail {

inline Status plan_error(const Group& g, const Rule& r, const std::string& msg) {
  return {Errc::bad_argument, "plan group " + g.name + ", " + transform_name(r.transform) + ": " + msg};
}

inline std::int64_t rows_of(const TensorSpec& t) { return t.shape.empty() ? 1 : t.shape[0]; }

// Same dtype and same extents after the first: tensors whose rows can be stacked.
inline bool same_row_type(const TensorSpec& a, const TensorSpec& b) {
  return a.dtype == b.dtype && a.shape.size() == b.shape.size() && !a.shape.empty() &&
         std::equal(a.shape.begin() + 1, a.shape.end(), b.shape.begin() + 1);
}

inline Status check_rule(const Group& g, const Rule& r) {
  const auto n_in = r.inputs.size(), n_out = r.outputs.size();
  auto arity = [&](bool ok) { return ok ? Status{} : plan_error(g, r, "wrong number of inputs or outputs"); };
  for (const auto* side : {&r.inputs, &r.outputs})
    for (const auto& t : *side)
      if (!byte_size(t.dtype, t.shape)) return plan_error(g, r, "tensor " + t.name + " has an invalid shape");
  switch (r.transform) {
    case Transform::rename:
    case Transform::swap_row_halves:
    case Transform::heads_to_parts:
    case Transform::parts_to_heads: {
      FUSEKIT_TRY(arity(n_in == 1 && n_out == 1));
      const auto &a = r.inputs[0], &b = r.outputs[0];
      if (a.dtype != b.dtype || a.shape != b.shape)
        return plan_error(g, r, describe(a) + " and " + describe(b) + " differ in dtype or shape");
      if (r.transform == Transform::swap_row_halves && (a.shape.empty() || a.shape[0] % 2 != 0))
        return plan_error(g, r, describe(a) + " has no even row count to halve");
      if (r.transform == Transform::heads_to_parts || r.transform == Transform::parts_to_heads)
        if (r.heads <= 0 || r.parts <= 0 || a.shape.empty() || a.shape[0] % (r.heads * r.parts) != 0)
          return plan_error(g, r, describe(a) + " rows do not divide into " + std::to_string(r.heads) + " heads x " +
                                      std::to_string(r.parts) + " parts");
      return {};
    }
    case Transform::split_rows:
    case Transform::concat_rows: {
      const bool split = r.transform == Transform::split_rows;
      FUSEKIT_TRY(arity(split ? n_in == 1 && n_out >= 1 : n_out == 1 && n_in >= 1));
      const TensorSpec& whole = split ? r.inputs[0] : r.outputs[0];
      const auto& parts = split ? r.outputs : r.inputs;
      std::int64_t rows = 0;
      for (const auto& p : parts) {
        if (!same_row_type(whole, p)) return plan_error(g, r, describe(p) + " does not stack with " + describe(whole));
        rows += p.shape[0];
      }
      if (rows != whole.shape[0]) return plan_error(g, r, "parts do not add up to the rows of " + describe(whole));
      return {};
    }
    case Transform::drop:
    case Transform::recompute: {
      const bool drop = r.transform == Transform::drop;
      FUSEKIT_TRY(arity(drop ? n_in == 1 && n_out == 0 : n_in == 0 && n_out == 1));
      const TensorSpec& t = drop ? r.inputs[0] : r.outputs[0];
      if (!r.recipe || t.dtype != TensorDType::F32 || t.shape != Shape{r.recipe->count})
        return plan_error(g, r, describe(t) + " does not match its recipe (F32 [count])");
      return {};
    }
  }
  return plan_error(g, r, "unknown transform");
}

}  // namespace detail

// Every rule consistent with its transform, and no name used twice on either side.
inline Status check_plan(const Plan& plan) {
  std::set<std::string> in_names, out_names;
  for (const auto& g : plan.groups)
    for (const auto& r : g.rules) {
      FUSEKIT_TRY(detail::check_rule(g, r));
      for (const auto& t : r.inputs)
        if (!in_names.insert(t.name).second) return detail::plan_error(g, r, "input " + t.name + " is used twice");
      for (const auto& t : r.outputs)
        if (!out_names.insert(t.name).second) return detail::plan_error(g, r, "output " + t.name + " is made twice");
    }
  return {};
}

// One line per rule: "blocks.0  split_rows  attn.qkv_proj.weight BF16 [..] -> a BF16 [..], b ..."
inline std::string describe(const Plan& plan) {
  std::string s = "plan " + plan.from + " -> " + plan.to + ": " + std::to_string(plan.inputs().size()) + " -> " +
                  std::to_string(plan.outputs().size()) + " tensors in " + std::to_string(plan.groups.size()) +
                  " groups\n";
  auto list = [](const std::vector<TensorSpec>& ts) {
    std::string l;
    for (const auto& t : ts) l += (l.empty() ? "" : ", ") + describe(t);
    return l.empty() ? std::string("(none)") : l;
  };
  for (const auto& g : plan.groups)
    for (const auto& r : g.rules) {
      s += g.name + "  " + transform_name(r.transform) + "  " + list(r.inputs) + " -> " + list(r.outputs);
      if (r.heads) s += "  (" + std::to_string(r.heads) + " heads x " + std::to_string(r.parts) + " parts)";
      if (r.recipe) s += "  (rope inv_freq, theta " + std::to_string(r.recipe->theta) + ")";
      s += "\n";
    }
  return s;
}

}  // namespace fusekit::checkpoint
