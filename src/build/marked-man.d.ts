// marked-man ships no types: it is a marked extension (renderer and tokenizer for roff).
declare module 'marked-man' {
  import type { MarkedExtension } from 'marked';
  const extension: MarkedExtension;
  export default extension;
}
