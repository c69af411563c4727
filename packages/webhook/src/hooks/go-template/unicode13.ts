// The code points Node's Unicode tables (17.0) assign as letters, marks, numbers, punctuation or symbols and Go
// 1.19's (Unicode 13.0.0) do not, so Go's unicode.IsPrint, IsLetter and IsDigit say no to them: `%q`, `%#U`, `js`
// escape them, and a variable may not be named with them. Listed by comparing every code point with Go 1.19.8's own
// unicode package; a Node with a later Unicode needs its additions listed too (go-text.test.ts checks a sample).

const RANGES: readonly (readonly [number, number])[] = (
  "61d 870-88f 897-89f 8b5 8c8-8d2 c3c c5c-c5d cdc-cdd cf3 ece 170d 1715 171f 180f 1ac1-1add 1ae0-1aeb 1b4c " +
  "1b4e-1b4f 1b7d-1b7f 1c89-1c8a 1dfa 20c0-20c1 2427-2429 2b96 2c2f 2c5f 2e53-2e5d 2ffc-2fff 31e4-31e5 31ef " +
  "9ffd-9fff a7c0-a7c1 a7cb-a7dc a7f1-a7f4 fbc2-fbd2 fd40-fd4f fd90-fd91 fdc8-fdcf fdfe-fdff 10570-1057a " +
  "1057c-1058a 1058c-10592 10594-10595 10597-105a1 105a3-105b1 105b3-105b9 105bb-105bc 105c0-105f3 10780-10785 " +
  "10787-107b0 107b2-107ba 10940-10959 10d40-10d65 10d69-10d85 10d8e-10d8f 10ec2-10ec7 10ed0-10ed8 10efa-10eff " +
  "10f70-10f89 11070-11075 110c2 1123f-11241 11380-11389 1138b 1138e 11390-113b5 113b7-113c0 113c2 113c5 " +
  "113c7-113ca 113cc-113d5 113d7-113d8 113e1-113e2 116b9 116d0-116e3 11740-11746 11ab0-11abf 11b00-11b09 " +
  "11b60-11b67 11bc0-11be1 11bf0-11bf9 11db0-11ddb 11de0-11de9 11f00-11f10 11f12-11f3a 11f3e-11f5a 12f90-12ff2 " +
  "1342f 13440-13455 13460-143fa 16100-16139 16a70-16abe 16ac0-16ac9 16d40-16d79 16ea0-16eb8 16ebb-16ed3 " +
  "16ff2-16ff6 187f8-187ff 18cff 18d09-18d1e 18d80-18df2 1aff0-1aff3 1aff5-1affb 1affd-1affe 1b11f-1b122 1b132 " +
  "1b155 1cc00-1ccfc 1cd00-1ceb3 1ceba-1ced0 1cee0-1cef0 1cf00-1cf2d 1cf30-1cf46 1cf50-1cfc3 1d1e9-1d1ea " +
  "1d2c0-1d2d3 1df00-1df1e 1df25-1df2a 1e030-1e06d 1e08f 1e290-1e2ae 1e4d0-1e4f9 1e5d0-1e5fa 1e5ff 1e6c0-1e6de " +
  "1e6e0-1e6f5 1e6fe-1e6ff 1e7e0-1e7e6 1e7e8-1e7eb 1e7ed-1e7ee 1e7f0-1e7fe 1f6d8 1f6dc-1f6df 1f774-1f77f 1f7d9 " +
  "1f7f0 1f8b2-1f8bb 1f8c0-1f8c1 1f8d0-1f8d8 1f979 1f9cc 1fa54-1fa57 1fa75-1fa77 1fa7b-1fa7c 1fa87-1fa8a " +
  "1fa8e-1fa8f 1faa9-1faaf 1fab7-1fabf 1fac3-1fac6 1fac8 1facd-1facf 1fad7-1fadc 1fadf-1faea 1faef-1faf8 " +
  "1fbcb-1fbef 1fbfa 2a6de-2a6df 2b735-2b73f 2cea2-2cead 2ebf0-2ee5d 31350-33479"
)
  .split(" ")
  .map((range) => {
    const [from = "", to = from] = range.split("-");
    return [Number.parseInt(from, 16), Number.parseInt(to, 16)] as const;
  });

/** Whether `code` was assigned after Unicode 13.0.0, the Unicode of Go 1.19 (Debian's webhook 2.8.0). */
export function newerThanUnicode13(code: number): boolean {
  let lo = 0;
  let hi = RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = RANGES[mid] as readonly [number, number];
    if (code < from) hi = mid - 1;
    else if (code > to) lo = mid + 1;
    else return true;
  }
  return false;
}
