// Text written into a buffer at an offset, by the writers Buffer.prototype.write(text, offset,
// encoding) calls once it has sorted out its arguments: on the path of every notification (its
// request, its signature) the argument handling cost more than the copy. The buffer must have room.
interface Writers {
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
}

/** Writes ASCII/Latin-1 `text` at `offset`; the bytes written. */
export function writeLatin1(buf: Buffer, text: string, offset: number): number {
  return (buf as unknown as Writers).latin1Write(text, offset);
}

/** Writes `text` as UTF-8 at `offset`; the bytes written. */
export function writeUtf8(buf: Buffer, text: string, offset: number): number {
  return (buf as unknown as Writers).utf8Write(text, offset);
}
