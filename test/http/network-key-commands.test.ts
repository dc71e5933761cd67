// Broken networks for the key and auth commands: see helpers/network-battery.ts for the faults
// and what each must show. The job commands are in battery-network.test.ts.
import { networkBattery } from '../support/network-battery.js';

networkBattery(['keys create', 'keys list', 'keys revoke', 'keys rotate', 'auth login', 'auth status']);
