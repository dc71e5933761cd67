// Broken networks for the key and auth commands: see test/support/network-battery.ts for the faults
// and what each must show. The job commands are in test/http/network-job-commands.test.ts.
import { networkBattery } from '../support/network-battery.js';

networkBattery(['keys create', 'keys list', 'keys revoke', 'keys rotate', 'auth login', 'auth status']);
