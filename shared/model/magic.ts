// Signatures of common non-model files, so that e.g. a PNG renamed .stl or .obj is recognised
// as "not a model" instead of being read as a broken one.
const FOREIGN_MAGIC: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x25, 0x50, 0x44, 0x46], // PDF
  [0x50, 0x4b, 0x03, 0x04], // zip
  [0x1f, 0x8b], // gzip
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a], // Windows executable
];

export function hasForeignMagic(bytes: Uint8Array): boolean {
  return FOREIGN_MAGIC.some((magic) => magic.length <= bytes.length && magic.every((v, i) => bytes[i] === v));
}
