/**
 * Go's `http.DetectContentType` (net/http/sniff.go, the WHATWG MIME sniffing subset Go implements). Go's server
 * applies it to the first write of a response that has no Content-Type, which is how upstream's command output and
 * `response-message` get their type; a Node port must do the same to answer with identical headers.
 */
export function detectContentType(body: Buffer): string {
  const data = body.subarray(0, 512);
  let firstNonWS = 0;
  while (firstNonWS < data.length && WS.has(data[firstNonWS] as number)) firstNonWS++;
  for (const sig of SIGNATURES) {
    const ct = sig(data, firstNonWS);
    if (ct !== "") return ct;
  }
  return "application/octet-stream";
}

type Sig = (data: Buffer, firstNonWS: number) => string;

const WS = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const bytes = (s: string) => Buffer.from(s, "latin1");

function html(tag: string): Sig {
  const pat = bytes(tag);
  return (data, first) => {
    const d = data.subarray(first);
    if (d.length < pat.length + 1) return "";
    for (let i = 0; i < pat.length; i++) {
      const b = pat[i] as number;
      const db = b >= 0x41 && b <= 0x5a ? (d[i] as number) & 0xdf : d[i];
      if (b !== db) return "";
    }
    // The tag must end there: a space or '>'.
    const tt = d[pat.length];
    return tt === 0x20 || tt === 0x3e ? "text/html; charset=utf-8" : "";
  };
}

function masked(mask: string, pat: string, ct: string, skipWS = false): Sig {
  const m = bytes(mask);
  const p = bytes(pat);
  return (data, first) => {
    const d = skipWS ? data.subarray(first) : data;
    if (d.length < p.length) return "";
    for (let i = 0; i < p.length; i++) if (((d[i] as number) & (m[i] as number)) !== p[i]) return "";
    return ct;
  };
}

function exact(sig: string, ct: string): Sig {
  const s = bytes(sig);
  return (data) => (data.subarray(0, s.length).equals(s) ? ct : "");
}

const mp4: Sig = (data) => {
  if (data.length < 12) return "";
  const boxSize = data.readUInt32BE(0);
  if (data.length < boxSize || boxSize % 4 !== 0) return "";
  if (data.toString("latin1", 4, 8) !== "ftyp") return "";
  for (let st = 8; st < boxSize; st += 4) {
    if (st === 12) continue; // the major brand's version
    if (data.toString("latin1", st, st + 3) === "mp4") return "video/mp4";
  }
  return "";
};

const text: Sig = (data, first) => {
  for (let i = first; i < data.length; i++) {
    const b = data[i] as number;
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return "";
  }
  return "text/plain; charset=utf-8";
};

const FF4 = "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF";
const SIGNATURES: readonly Sig[] = [
  ...[
    "<!DOCTYPE HTML",
    "<HTML",
    "<HEAD",
    "<SCRIPT",
    "<IFRAME",
    "<H1",
    "<DIV",
    "<FONT",
    "<TABLE",
    "<A",
    "<STYLE",
  ].map(html),
  ...["<TITLE", "<B", "<BODY", "<BR", "<P", "<!--"].map(html),
  masked("\xFF\xFF\xFF\xFF\xFF", "<?xml", "text/xml; charset=utf-8", true),
  exact("%PDF-", "application/pdf"),
  exact("%!PS-Adobe-", "application/postscript"),
  masked("\xFF\xFF\x00\x00", "\xFE\xFF\x00\x00", "text/plain; charset=utf-16be"),
  masked("\xFF\xFF\x00\x00", "\xFF\xFE\x00\x00", "text/plain; charset=utf-16le"),
  masked("\xFF\xFF\xFF\x00", "\xEF\xBB\xBF\x00", "text/plain; charset=utf-8"),
  exact("\x00\x00\x01\x00", "image/x-icon"),
  exact("\x00\x00\x02\x00", "image/x-icon"),
  exact("BM", "image/bmp"),
  exact("GIF87a", "image/gif"),
  exact("GIF89a", "image/gif"),
  masked(
    "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF\xFF\xFF",
    "RIFF\x00\x00\x00\x00WEBPVP",
    "image/webp",
  ),
  exact("\x89PNG\x0D\x0A\x1A\x0A", "image/png"),
  exact("\xFF\xD8\xFF", "image/jpeg"),
  masked(FF4, "FORM\x00\x00\x00\x00AIFF", "audio/aiff"),
  masked("\xFF\xFF\xFF", "ID3", "audio/mpeg"),
  masked("\xFF\xFF\xFF\xFF\xFF", "OggS\x00", "application/ogg"),
  masked("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", "MThd\x00\x00\x00\x06", "audio/midi"),
  masked(FF4, "RIFF\x00\x00\x00\x00AVI ", "video/avi"),
  masked(FF4, "RIFF\x00\x00\x00\x00WAVE", "audio/wave"),
  mp4,
  exact("\x1A\x45\xDF\xA3", "video/webm"),
  masked(`${"\x00".repeat(34)}\xFF\xFF`, `${"\x00".repeat(34)}LP`, "application/vnd.ms-fontobject"),
  exact("\x00\x01\x00\x00", "font/ttf"),
  exact("OTTO", "font/otf"),
  exact("ttcf", "font/collection"),
  exact("wOFF", "font/woff"),
  exact("wOF2", "font/woff2"),
  exact("\x1F\x8B\x08", "application/x-gzip"),
  exact("PK\x03\x04", "application/zip"),
  exact("Rar!\x1A\x07\x00", "application/x-rar-compressed"),
  exact("Rar!\x1A\x07\x01\x00", "application/x-rar-compressed"),
  exact("\x00\x61\x73\x6D", "application/wasm"),
  text,
];
