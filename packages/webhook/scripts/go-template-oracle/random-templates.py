# Random templates (seeded) over the builtins, constants, variables and control actions, for differential tests
# against Go: python3 random-templates.py SEED COUNT > inputs.json (go1.19-random-templates.json: seed 42, 800).
import random, json
random.seed(int(__import__('sys').argv[1]))
consts = ['1','0','-3','2.5','1e6','0x1F','\'a\'','"s"','""','"héllo"','`r`','true','false','nil','1i','.','$','.X','$.Y','(index "ab" 1)','(slice "héllo" 1 2)','(getenv "A")','(getenv "Q")','1.5e300','0.1','-2.5e-10','3','"%d"','"%s|%5.2f"','"%v %v"','"%q"','"%x"','"%[2]d"','"%!"','255','-0.0','1e-7','9223372036854775807']
funcs = ['printf','print','println','len','index','slice','eq','ne','lt','le','gt','ge','and','or','not','html','js','urlquery','getenv','call']
def arg(d):
    r = random.random()
    if d > 2 or r < 0.6: return random.choice(consts)
    if r < 0.75: return '$v'
    return '(' + pipe(d+1) + ')'
ARITY = {'printf':(1,4),'print':(0,4),'println':(0,3),'len':(1,1),'index':(1,3),'slice':(1,3),'eq':(2,4),'ne':(2,2),'lt':(2,2),'le':(2,2),'gt':(2,2),'ge':(2,2),'and':(1,3),'or':(1,3),'not':(1,1),'html':(1,2),'js':(1,2),'urlquery':(1,2),'getenv':(1,1),'call':(1,1)}
def cmd(d, piped=False):
    r = random.random()
    if r < 0.8 or piped:
        f = random.choice(funcs)
        lo, hi = ARITY[f]
        n = random.randint(lo, hi) - (1 if piped and random.random() < 0.9 else 0)
        args = [arg(d) for _ in range(max(n, 0))]
        if f == 'printf' and args and random.random() < 0.8: args[0] = random.choice(['"%d"','"%s|%5.2f"','"%v %v"','"%q"','"%x"','"%[2]d"','"%T"','"%08.3f"','"%-5s|"','"%c%U"','"%+q"','"%#v"','"%e"','"%g"'])
        return ' '.join([f] + args)
    return arg(d)
def pipe(d):
    p = cmd(d)
    if random.random() < 0.4: p += ' | ' + cmd(d, True)
    return p
def action(d):
    r = random.random()
    if r < 0.5: return '{{ ' + pipe(d) + ' }}'
    if r < 0.6: return '{{ $v := ' + pipe(d) + ' }}'
    if r < 0.65: return '{{ $v = ' + pipe(d) + ' }}'
    if r < 0.75 and d < 3: return '{{ if ' + pipe(d) + ' }}' + body(d+1) + ('{{ else }}' + body(d+1) if random.random()<0.5 else '') + '{{ end }}'
    if r < 0.82 and d < 3: return '{{ with ' + pipe(d) + ' }}' + body(d+1) + '{{ end }}'
    if r < 0.87 and d < 3: return '{{ range ' + pipe(d) + ' }}' + body(d+1) + '{{ else }}e{{ end }}'
    if r < 0.9: return '{{- ' + pipe(d) + ' -}}'
    return ' txt '
def body(d):
    return ''.join(action(d) for _ in range(random.randint(1,3)))
out = ['{{ $v := 1 }}' + body(0) for _ in range(int(__import__('sys').argv[2]))]
print(json.dumps(out))
