import csv,sys,collections,re
def load(f):
    rows=[];hdr=None
    for r in csv.reader(open(f)):
        if r and r[0]=='Address': hdr=r; continue
        if hdr and r and r[0].startswith('0x'):
            rows.append(dict(zip(hdr,r)))
    return rows
for f in sys.argv[1:]:
    rows=load(f)
    tot=sum(int(r['Instructions Executed']) for r in rows)
    ops=collections.Counter(); 
    for r in rows:
        src=r['Source'].strip()
        op=src.split()[0]
        if op.startswith('@'): op=src.split()[1]
        ops[op.split('.')[0]]+=int(r['Instructions Executed'])
    warps=16384
    print(f"== {f}: {tot} warp instr, {tot/warps:.0f}/warp, static {len(rows)}")
    print('  '+', '.join(f"{k}:{v/warps:.0f}" for k,v in ops.most_common(30)))
