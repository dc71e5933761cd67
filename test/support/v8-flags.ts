// What V8 runs a command that talks to the service with (src/launch/load-bundle.cts): WebAssembly
// (undici's HTTP parser, jq) compiled by Liftoff alone, never recompiled by TurboFan. The test
// workers run the CLI without the launcher, so they set the same flag themselves (before each test
// file; setting it again changes nothing). Without it, each worker, thousands of responses in,
// recompiled both parsers with TurboFan: work, and memory, that no user's run spends. (As in the
// CLI, V8 then refuses Node's own code cache for the built-ins a worker loads after it: a few of them.)
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--liftoff-only');
