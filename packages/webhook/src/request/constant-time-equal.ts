import { timingSafeEqual } from "node:crypto";

/** Constant-time string comparison (Go `subtle.ConstantTimeCompare`; different lengths are simply unequal). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
