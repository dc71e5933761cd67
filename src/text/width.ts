// How many terminal columns text takes, for aligning tables: ANSI colour codes take none, East
// Asian wide and fullwidth characters and emoji take two, controls and combining marks none.
// The same rules as the string-width package that cli-table3 used, so tables keep their look.

// eslint-disable-next-line no-control-regex -- ESC begins the colour codes it skips
const SGR = /\u001b\[[0-9;]*m/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** One emoji, however many code points it takes: a flag, a keycap, a skin tone, a variation selector. */
const EMOJI = /\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}(?=[\uFE0F\p{Emoji_Modifier}]))\uFE0F?\p{Emoji_Modifier}?\uFE0F?/gu;

export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  const plain = text.replace(SGR, '');
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  const rest = plain.replace(EMOJI, '  ');
  let width = 0;
  for (const char of rest) {
    const cp = char.codePointAt(0) as number;
    if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0xfe00 && cp <= 0xfe0f)) continue;
    width += isWide(cp) ? 2 : 1;
  }
  return width;
}

/** East Asian Wide (W) and Fullwidth (F) ranges. */
function isWide(cp: number): boolean {
  return (
    cp >= 0x1100 &&
    (cp <= 0x115f ||
      cp === 0x2329 ||
      cp === 0x232a ||
      (cp >= 0x2e80 && cp <= 0x3247 && cp !== 0x303f) ||
      (cp >= 0x3250 && cp <= 0x4dbf) ||
      (cp >= 0x4e00 && cp <= 0xa4c6) ||
      (cp >= 0xa960 && cp <= 0xa97c) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe10 && cp <= 0xfe19) ||
      (cp >= 0xfe30 && cp <= 0xfe6b) ||
      (cp >= 0xff01 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1b000 && cp <= 0x1b001) ||
      (cp >= 0x1f200 && cp <= 0x1f251) ||
      (cp >= 0x20000 && cp <= 0x3fffd))
  );
}
