import { fileURLToPath } from "node:url";

/** Our built server's launcher. */
export const OUR_WEBHOOK = fileURLToPath(new URL("../../../bin/webhook.js", import.meta.url));

/** Debian's webhook 2.8 (package `webhook`): only `*.peers.test.ts` files start it. */
export const PEER_WEBHOOK = "/usr/bin/webhook";
