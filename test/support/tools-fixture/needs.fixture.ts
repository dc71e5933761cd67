// Tests that need tools, run by test/process/tools.test.ts where none is on PATH. The hooks are
// those of a keyring test: a session started before each test, and an afterEach that closes what
// the beforeEach made, which would throw a second error (a TypeError) if it ran after a failed start.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { needs, requireTools } from '../tools.js';

describe('a zsh session', needs('zsh'), () => {
  let close: (() => void) | undefined;
  beforeEach(() => {
    requireTools('zsh');
    close = () => undefined;
  });
  afterEach(() => {
    (close as () => void)();
    close = undefined;
  });

  it('completes a command', () => {
    expect(close).toBeDefined();
  });

  it('completes a flag', () => {
    expect(close).toBeDefined();
  });
});

describe('a terminal multiplexer and another shell', () => {
  it('draws in tmux, typed in fish', needs('tmux', 'fish'), () => {
    requireTools('tmux', 'fish');
  });

  it('needs no tool', () => {
    expect(1 + 1).toBe(2);
  });
});
