#!/bin/bash
# Per-kernel SASS: instruction count and opcode histogram.
for f in "$@"; do
  cuobjdump -sass "$f" > "$OUT/$(basename $f).sass"
done
python3 - "$OUT" <<'PY'
import sys,re,collections,glob
for path in glob.glob(sys.argv[1]+'/*.sass'):
    txt=open(path).read()
    for m in re.finditer(r'Function : (\S+)\n(.*?)(?=\n\s*Function :|\Z)', txt, re.S):
        name=m.group(1)
        if not ('row_kernel' in name or ('probe_kernel' in name and ('ILi256ELi2ELi1ELi1ELi0' in name or 'ILi64ELi2ELi4ELi1ELi0' in name or 'ILi256ELi2ELi1ELi0ELi1' in name))): continue
        ops=collections.Counter()
        n=0
        for line in m.group(2).splitlines():
            mm=re.match(r'\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)',line)
            if mm:
                op=mm.group(2)
                if op=='NOP': continue
                n+=1; ops[op.split('.')[0]]+=1
        print(name[:110], n)
        print('   ', ' '.join(f'{k}:{v}' for k,v in ops.most_common(28)))
PY
