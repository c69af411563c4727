// `-secure -cert -key` on our server alone: the cases of test/support/tls-cases.ts
// (compared with Debian's webhook in test/tls.peers.test.ts).
import { tlsTests } from "./support/tls-cases.js";

tlsTests(["ours"]);
