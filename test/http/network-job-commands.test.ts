// Broken networks for the job commands: see test/support/network-battery.ts for the faults and what
// each must show. The key and auth commands are in test/http/network-key-commands.test.ts.
import { networkBattery } from '../support/network-battery.js';

networkBattery(['job status', 'job watch', 'job pages', 'job cancel']);
