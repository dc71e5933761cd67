// Which owners and modes make a config file or folder untrustworthy (as ssh judges its own), as a
// pure rule; the commands refusing such files are in trust.test.ts.
import { describe, expect, it } from 'vitest';
import { distrust } from '../../src/config/file-trust.js';

describe('distrust (ssh-style ownership and mode rules)', () => {
  const ME = 1000;
  it('trusts what is mine or root\'s and not writable by group or others', () => {
    for (const uid of [ME, 0]) {
      for (const mode of [0o600, 0o644, 0o400, 0o700, 0o755, 0o711]) {
        expect(distrust({ uid, mode }, 'file', ME)).toBeUndefined();
        expect(distrust({ uid, mode }, 'folder', ME)).toBeUndefined();
      }
    }
  });

  it('refuses a file writable by group or others, whatever else its mode says', () => {
    for (const mode of [0o666, 0o620, 0o602, 0o660, 0o622, 0o1666, 0o4620]) {
      expect(distrust({ uid: ME, mode: 0o100000 | mode }, 'file', ME)).toEqual({ reason: 'writable', mode });
    }
  });

  it('refuses a folder writable by group or others unless it is sticky', () => {
    for (const mode of [0o777, 0o770, 0o775, 0o757, 0o730, 0o720]) {
      expect(distrust({ uid: ME, mode: 0o40000 | mode }, 'folder', ME)).toEqual({ reason: 'writable', mode });
      expect(distrust({ uid: 0, mode: 0o40000 | 0o1000 | mode }, 'folder', ME)).toBeUndefined();
    }
    // The sticky bit means nothing on a file.
    expect(distrust({ uid: ME, mode: 0o1666 }, 'file', ME)).toEqual({ reason: 'writable', mode: 0o1666 });
  });

  it('refuses what another user owns (root excepted), even with a private mode; root itself trusts only its own', () => {
    expect(distrust({ uid: 1001, mode: 0o600 }, 'file', ME)).toEqual({ reason: 'owner', mode: 0o600, uid: 1001 });
    expect(distrust({ uid: 1001, mode: 0o1777 }, 'folder', ME)).toEqual({ reason: 'owner', mode: 0o1777, uid: 1001 });
    expect(distrust({ uid: ME, mode: 0o600 }, 'file', 0)).toEqual({ reason: 'owner', mode: 0o600, uid: ME });
    expect(distrust({ uid: 0, mode: 0o600 }, 'file', 0)).toBeUndefined();
  });
});
