import struct, sys, statistics as st
def load(f):
    b=open(f,'rb').read(); v=struct.unpack('<%dQ'%(len(b)//8), b)
    return [[v[(c*4+s)*64:(c*4+s)*64+64] for s in range(4)] for c in range(132)]
def ana(name):
    for rep in range(4):
        T=load(f'tl/{name}_{rep}.bin')
        tot=[];main=[];segs=[];ho=[];last=[];lastepi=[];gapstart=[];tiles_n=[];wait1=[]
        ent_gt=[];ext_gt=[]
        for c in range(132):
            for s in (0,1):
                e=T[c][s]
                if e[63]==0: continue
                ent=e[63]; ent_gt.append(e[62]); 
                if e[61]: ext_gt.append(e[61])
                j=0
                while j<6 and e[j*8]:
                    t=e[j*8:j*8+8]
                    segend=max(t[1],t[2],t[3])
                    main.append(segend-t[0]); 
                    if t[5]: wait1.append(t[6]-t[5])
                    if t[4]: ho.append(t[4]-segend)
                    j+=1
                tiles_n.append(j)
                if e[48]: lastepi.append(e[49]-e[48]); tot.append(e[49]-ent)
                gapstart.append(e[0]-ent)
        f=lambda x: '%.0f/%.0f/%.0f'%(min(x),st.mean(x),max(x)) if x else '-'
        print(f'{name} rep{rep}: total(entry->last epi end) min/mean/max {f(tot)}; main/tile {f(main)}; handoff chunk0 {f(ho)}; wait chunk1 after seg0 {f(wait1)}; last epi {f(lastepi)}; entry->tile0 {f(gapstart)}; tiles {f(tiles_n)}')
        if ent_gt and ext_gt: print('   globaltimer: kernel span first entry -> last exit %.1f us; entries spread %.1f us; exits spread %.1f us'%((max(ext_gt)-min(ent_gt))/1e3,(max(ent_gt)-min(ent_gt))/1e3,(max(ext_gt)-min(ext_gt))/1e3))
        # epilogue warps
        ew=[];
        for c in range(132):
            e=T[c][2]
            k=0
            while k<40 and e[k] and e[k+1]:
                ew.append(e[k+1]-e[k]); k+=2
        print('   epilogue warps per handed chunk', f(ew))
for n in sys.argv[1:]: ana(n)
