import csv,gzip,collections,sys
rows=list(csv.reader(gzip.open(sys.argv[1],'rt')))
hdr=rows[1]
cols=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot=collections.Counter(); per=[]
isrc=hdr.index('Source'); iex=hdr.index('Instructions Executed'); ism=hdr.index('Warp Stall Sampling (All Samples)')
for r in rows[2:]:
    if len(r)<len(hdr): continue
    for c in cols:
        try: tot[c]+=int(r[hdr.index(c)])
        except: pass
    try: per.append((int(r[ism]), r[isrc].strip(), int(r[iex]), {c:int(r[hdr.index(c)]) for c in cols if r[hdr.index(c)] not in ('','0')}))
    except: pass
s=sum(tot.values())
print(' '.join(f"{c[6:]}={100*v/s:.0f}%" for c,v in tot.most_common(8)))
per.sort(key=lambda x:-x[0])
for smp,src,ex,d in per[:14]: print(f"{smp:5d} {ex:8d} {src[:60]:60s} {sorted(d.items(),key=lambda x:-x[1])[:2]}")
