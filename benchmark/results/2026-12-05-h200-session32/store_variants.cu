#include "fusekit/gemm/epilogue/tile.hpp"
#include <cuda_bf16.h>
using namespace fusekit; using namespace fusekit::gemm;
__device__ __forceinline__ unsigned pk(float lo, float hi) { const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi); return reinterpret_cast<const unsigned&>(h); }
__device__ __forceinline__ unsigned pk_asm(float lo, float hi) { unsigned u; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(hi), "f"(lo)); return u; }
struct P { bf16_t* out; long long ld; };
// v1: plain vector store of packed words
__global__ void v1(P p, AccTile t) { for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
  *reinterpret_cast<uint4*>(p.out + (t.row0 + r) * p.ld + t.col0 + c) = make_uint4(pk(v[0],v[1]),pk(v[2],v[3]),pk(v[4],v[5]),pk(v[6],v[7])); }); }
// v2: inline-asm vector store
__global__ void v2(P p, AccTile t) { for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" :: "l"(p.out + (t.row0 + r) * p.ld + t.col0 + c), "r"(pk(v[0],v[1])), "r"(pk(v[2],v[3])), "r"(pk(v[4],v[5])), "r"(pk(v[6],v[7])) : "memory"); }); }
// v3: asm packs + vector store
__global__ void v3(P p, AccTile t) { for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
  *reinterpret_cast<uint4*>(p.out + (t.row0 + r) * p.ld + t.col0 + c) = make_uint4(pk_asm(v[0],v[1]),pk_asm(v[2],v[3]),pk_asm(v[4],v[5]),pk_asm(v[6],v[7])); }); }
// v4: streaming store intrinsic
__global__ void v4(P p, AccTile t) { for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
  __stcg(reinterpret_cast<uint4*>(p.out + (t.row0 + r) * p.ld + t.col0 + c), make_uint4(pk(v[0],v[1]),pk(v[2],v[3]),pk(v[4],v[5]),pk(v[6],v[7]))); }); }
// v5: a 128-bit register: mov.b128 then st.global.b128
__global__ void v5(P p, AccTile t) { for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
  asm volatile("{\n .reg .b128 q;\n mov.b128 q, {%1, %2, %3, %4};\n st.global.b128 [%0], q;\n}" :: "l"(p.out + (t.row0 + r) * p.ld + t.col0 + c), "r"(pk(v[0],v[1])), "r"(pk(v[2],v[3])), "r"(pk(v[4],v[5])), "r"(pk(v[6],v[7])) : "memory"); }); }
