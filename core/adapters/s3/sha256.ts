// SHA-256 and HMAC-SHA256 from node:crypto in the shape the SigV4 signer takes (@smithy/types Checksum).
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

export class NodeSha256 {
  private hash: Hash | Hmac;
  private readonly secret: string | Uint8Array | undefined;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.secret = toBytes(secret);
    this.hash = this.secret ? createHmac('sha256', this.secret) : createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    const bytes = toBytes(data);
    if (bytes !== undefined) this.hash.update(bytes);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.secret ? createHmac('sha256', this.secret) : createHash('sha256');
  }
}

function toBytes(data: string | ArrayBuffer | ArrayBufferView | undefined): string | Uint8Array | undefined {
  if (data === undefined || typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
