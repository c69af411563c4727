// The Go values a template over nil data can hold: strings (byte strings, go-text.ts), ints, the uint8 `index`
// gives of a string, float64s, complex128s and bools; plus Go's "no value" (an invalid reflect.Value: nil data, a
// missing field) and a nil interface (what `nil` becomes as an argument of type `any`).

export type GoValue =
  | { readonly kind: "string"; readonly v: string }
  | { readonly kind: "int"; readonly v: bigint }
  | { readonly kind: "uint8"; readonly v: number }
  | { readonly kind: "float64"; readonly v: number }
  | { readonly kind: "complex128"; readonly re: number; readonly im: number }
  | { readonly kind: "bool"; readonly v: boolean }
  | { readonly kind: "nil" };

/** A reflect.Value: undefined is the zero (invalid) Value. */
export type Value = GoValue | undefined;

export const str = (v: string): GoValue => ({ kind: "string", v });
export const int = (v: bigint | number): GoValue => ({ kind: "int", v: BigInt(v) });
export const bool = (v: boolean): GoValue => ({ kind: "bool", v });
export const NIL: GoValue = { kind: "nil" };

/** reflect.Type.String() of a value; a nil interface has none (Go prints `<nil>` in its place). */
export function typeName(v: GoValue): string {
  return v.kind === "nil" ? "<nil>" : v.kind;
}

/** text/template's isTrue: the zero value of a type is false; no value is false. */
export function isTrue(v: Value): boolean {
  if (v === undefined) return false;
  switch (v.kind) {
    case "string":
      return v.v.length > 0;
    case "int":
      return v.v !== 0n;
    case "uint8":
    case "float64":
      return v.v !== 0;
    case "complex128":
      return v.re !== 0 || v.im !== 0;
    case "bool":
      return v.v;
    case "nil":
      return false;
  }
}
