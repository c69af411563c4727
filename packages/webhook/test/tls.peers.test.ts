// `-secure -cert -key` side by side with Debian's /usr/bin/webhook 2.8.0: every case of
// test/support/tls-cases.ts must observe the same on both servers.
import { tlsTests } from "./support/tls-cases.js";

tlsTests(["peer", "ours"]);
