import re, json, sys
sys.path.insert(0, '/tmp/gox')
from golit import unquote, STR
T = '/usr/lib/go-1.19/src/text/template/'
def table(path, name):
    src = open(path).read()
    a = src.index('var ' + name)
    # find matching closing brace of the slice literal
    i = src.index('{', src.index('}{', a) if '}{' in src[a:a+200] else a)
    depth = 0; j = src.index('{', a + len('var ' + name))
    # skip type struct braces if inline struct
    return src[a:]
inputs = []
# exec tests: {"name", INPUT, OUTPUT, data, ok}
src = open(T + 'exec_test.go').read()
for m in re.finditer(r'\{\s*(' + STR + r')\s*,\s*(' + STR + r')\s*,', src):
    inputs.append(unquote(m.group(2)))
for f in ['parse/parse_test.go', 'parse/lex_test.go', 'multi_test.go']:
    src = open(T + f).read()
    for m in re.finditer(r'\{\s*(' + STR + r')\s*,\s*(' + STR + r')\s*,', src):
        inputs.append(unquote(m.group(2)))
    for m in re.finditer(r'\{\s*(' + STR + r')\s*,\s*\n\s*(' + STR + r')\s*,', src):
        inputs.append(unquote(m.group(2)))
seen = set(); uniq = []
for b in inputs:
    try: s = b.decode('utf8')
    except UnicodeDecodeError: continue
    if s not in seen and '{{' in s and '[[' not in s:
        seen.add(s); uniq.append(s)
json.dump(uniq, open('/tmp/gox/template-inputs.json', 'w'))
print('templates', len(uniq))
# fmt tests with simple literal values
src = open('/usr/lib/go-1.19/src/fmt/fmt_test.go').read()
lit = r'(' + STR + r'|-?(?:0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)|true|false|nil)'
fm = []
for m in re.finditer(r'\{\s*(' + STR + r')\s*,\s*' + lit + r'\s*,\s*(' + STR + r')\s*\}', src):
    f, v = m.group(1), m.group(2)
    try: fb = unquote(f).decode('utf8')
    except UnicodeDecodeError: continue
    if v[0] in '"`':
        try: vb = unquote(v).decode('utf8')
        except UnicodeDecodeError: continue
        val = json.dumps(vb)  # template string literal (JSON escapes are valid Go escapes)
    else:
        val = v
    fm.append('{{ printf ' + json.dumps(fb) + ' ' + val + ' }}')
fm = list(dict.fromkeys(fm))
json.dump(fm, open('/tmp/gox/fmt-inputs.json', 'w'))
print('fmt', len(fm))
# strconv/ftoa_test.go and strconv/quote_test.go tables → go1.19-strconv-tables.json (strings as byte strings)
S = '/usr/lib/go-1.19/src/strconv/'
def bs(b): return b.decode('latin1')
def rows(src, var, pattern):
    a = src.index('var ' + var); b = src.index('\n}\n', a)
    return list(re.finditer(pattern, src[a:b]))
ftoa_src = open(S + 'ftoa_test.go').read()
num = r'(-?(?:0[xX][0-9a-fA-Fp.+-]+|[0-9.]+(?:[eE][+-]?[0-9]+)?))'
ftoa = [[m.group(1), m.group(2), int(m.group(3)), unquote(m.group(4)).decode()]
        for m in rows(ftoa_src, 'ftoatests', r'\{' + num + r",\s*'(.)',\s*(-?\d+),\s*(" + STR + r')\}')]
q = open(S + 'quote_test.go').read()
tables = {
    'ftoa': ftoa,
    'quote': [[bs(unquote(m.group(i))) for i in (1, 2, 3)] for m in rows(q, 'quotetests', r'\{(' + STR + r'),\s*(' + STR + r'),\s*(' + STR + r'),\s*(' + STR + r')\}')],
    'unquote': [[bs(unquote(m.group(i))) for i in (1, 2)] for m in rows(q, 'unquotetests', r'\{(' + STR + r'),\s*(' + STR + r')\}')],
    'misquoted': [bs(unquote(m.group(0))) for m in rows(q, 'misquoted', STR)],
    'canBackquote': [[bs(unquote(m.group(1))), m.group(2) == 'true'] for m in rows(q, 'canbackquotetests', r'\{(' + STR + r'),\s*(true|false)\}')],
}
json.dump(tables, open('/tmp/gox/strconv-tables.json', 'w'), indent=1)
