import re,collections,sys
d=sys.argv[1]; vs=sys.argv[2].split(',')
rows=collections.OrderedDict()
for v in vs:
    for r in (1,2):
        for l in open(f'{d}/bench_{v}_{r}.txt'):
            m=re.match(r'\[fusekit-bench.*\] (\S+)/fusekit/gpu_throughput ([\d.]+) us',l)
            if m: rows.setdefault(m.group(1),{})[(v,r)]=float(m.group(2))
print('case'.ljust(46)+''.join(f'{v}{r}'.rjust(8) for v in vs for r in (1,2))+''.join(f'{v}/{vs[0]}'.rjust(9) for v in vs[1:]))
for k,x in rows.items():
    line=k.ljust(46)+''.join(f'{x[(v,r)]:8.2f}' for v in vs for r in (1,2))
    b=(x[(vs[0],1)]+x[(vs[0],2)])
    line+=''.join(f'{b/(x[(v,1)]+x[(v,2)]):9.3f}' for v in vs[1:])
    print(line)
