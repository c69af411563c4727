import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { constants, createGzip } from "node:zlib";

/**
 * Bytes of the input buffer a streamed gzip answer reuses for its text chunks: a scrape's chunks are about 64 KiB of
 * text (exposition/format-text.ts), which fits even as three bytes of UTF-8 per character.
 */
const INPUT_BYTES = 256 * 1024;

/**
 * Input buffers of finished answers, for the next: a new one per scrape lived through the scrape's collections into
 * the old generation and stayed there until the next full collection, 2.5 MB of them after ten 100k-series scrapes
 * (bench/pushgateway/README.md). Two cover a scraper and a second one at the same time; more are allocated as needed.
 */
const spareInputs: Buffer[] = [];
const SPARE_INPUTS = 2;

/**
 * Streams `chunks` to `res` through one gzip stream at zlib level 1 (on a 7 MB exposition 33 ms for 0.95 MB, where
 * zlib's default, 6, takes 115 ms for 0.89 MB), as promhttp compresses a scrape while writing it. Text chunks are
 * encoded into one buffer reused for the whole answer (and the next ones), the next written only once zlib has
 * consumed the last: a `Buffer` per 64 KiB chunk made a 100k-series scrape leave about 7 MB of buffers behind for
 * the collector and in malloc's arenas (bench/pushgateway/README.md). Resolves when the answer is written or the
 * client went away.
 */
export async function writeGzipped(res: ServerResponse, chunks: Iterable<string | Buffer>): Promise<void> {
  const gzip = createGzip({ level: constants.Z_BEST_SPEED });
  const sent = pipeline(gzip, res).then(
    () => true,
    () => {
      res.destroy();
      return false;
    },
  );
  let input: Buffer | undefined = spareInputs.pop();
  for (const chunk of chunks) {
    let data: Buffer;
    if (typeof chunk !== "string") data = chunk;
    else if (chunk.length * 3 <= INPUT_BYTES || Buffer.byteLength(chunk) <= INPUT_BYTES) {
      input ??= Buffer.allocUnsafeSlow(INPUT_BYTES);
      data = input.subarray(0, input.write(chunk));
    } else data = Buffer.from(chunk);
    // The write's callback runs once zlib has consumed the input (and the output it made was taken): then the
    // buffer may be filled again. A failed write (the client gone) ends the loop; `sent` has destroyed `res`.
    const ok = await new Promise<boolean>((resolve) => gzip.write(data, (error) => resolve(!error)));
    if (!ok || res.destroyed || gzip.destroyed) break;
  }
  if (!gzip.destroyed) gzip.end();
  // Handed on only once zlib has consumed all of it: an answer cut short may still have a write in zlib.
  if ((await sent) && input !== undefined && spareInputs.length < SPARE_INPUTS) spareInputs.push(input);
}
