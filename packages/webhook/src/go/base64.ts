const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Map([...ALPHABET].map((c, i) => [c.charCodeAt(0), i]));
const PAD = 0x3d; // '='

/**
 * Go's `base64.StdEncoding.DecodeString`, bytes and error: strict padding, `\r`/`\n` skipped, and on corrupt input
 * the bytes of the quanta decoded before it. Upstream writes that partial result to the `pass-file-to-command` file
 * and only logs the error (hook.go `ExtractCommandArgumentsForFile`); Node's `Buffer.from(s, "base64")` instead
 * skips bad characters and would write different bytes.
 */
export function goBase64Decode(text: string): { bytes: Buffer; error?: string } {
  const src = Buffer.from(text, "utf8");
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const quantum: number[] = [];
    let dlen = 4;
    let error: string | undefined;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { bytes: Buffer.from(out) };
        // Padding is required, so a short final quantum is corrupt.
        return { bytes: Buffer.from(out), error: corrupt(si - j) };
      }
      const c = src[si] as number;
      si++;
      const v = DECODE.get(c);
      if (v !== undefined) {
        quantum[j] = v;
        continue;
      }
      if (c === 0x0a || c === 0x0d) {
        j--;
        continue;
      }
      if (c !== PAD || j < 2) return { bytes: Buffer.from(out), error: corrupt(si - 1) };
      if (j === 2) {
        while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
        if (si === src.length) return { bytes: Buffer.from(out), error: corrupt(src.length) };
        if (src[si] !== PAD) return { bytes: Buffer.from(out), error: corrupt(si - 1) };
        si++;
      }
      while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
      if (si < src.length) error = corrupt(si);
      dlen = j;
      break;
    }
    const [a = 0, b = 0, c = 0, d = 0] = quantum;
    const val = (a << 18) | (b << 12) | (c << 6) | d;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff].slice(0, dlen - 1);
    out.push(...bytes);
    if (error !== undefined || dlen < 4)
      return error === undefined ? { bytes: Buffer.from(out) } : { bytes: Buffer.from(out), error };
  }
}

function corrupt(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}
