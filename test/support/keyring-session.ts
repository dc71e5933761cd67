// The real Secret Service a keyring test runs against: the same one `npm run bench` measures with.
export { KEYRING_PASSWORD, startKeyringSession, type KeyringSession, type KeyringSessionOptions } from '../../src/bench/keyring-session.js';
