/**
 * node:crypto as the AWS SDK's Checksum interface (SHA-256, or HMAC-SHA256 when given a
 * secret), for @smithy/signature-v4. The SDK's own node hash package is not a dependency
 * of this tree; this is its whole job.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

const toBuffer = (d: SourceData): Buffer =>
  typeof d === 'string' ? Buffer.from(d, 'utf8') : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);

export class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(this.secret));
  }

  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }
}
