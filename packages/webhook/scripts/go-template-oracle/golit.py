import re
STR = r'(?:"(?:[^"\\\n]|\\.)*"|`[^`]*`)'
def unquote(lit):
    """Go string literal -> Python bytes."""
    if lit[0] == '`':
        return lit[1:-1].replace('\r', '').encode('utf8')
    s = lit[1:-1]; out = bytearray(); i = 0
    simple = {'a':7,'b':8,'f':12,'n':10,'r':13,'t':9,'v':11,'\\':92,'"':34,"'":39}
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode('utf8'); i += 1; continue
        e = s[i+1]
        if e in simple: out.append(simple[e]); i += 2
        elif e == 'x': out.append(int(s[i+2:i+4], 16)); i += 4
        elif e == 'u': out += chr(int(s[i+2:i+6], 16)).encode('utf8', 'surrogatepass'); i += 6
        elif e == 'U': out += chr(int(s[i+2:i+10], 16)).encode('utf8'); i += 10
        elif e in '01234567': out.append(int(s[i+1:i+4], 8)); i += 4
        else: raise ValueError(lit)
    return bytes(out)
