/**
 * A small PNG reader for the tests, independent of the code under test: the signature, the IHDR size, and the pixels
 * (IDAT inflated with the platform's DecompressionStream, scanline filters undone) of 8-bit RGB/RGBA pictures, enough
 * to tell a picture of a page from a blank one. Runs in Node and in workerd.
 */
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export interface DecodedPng {
  width: number;
  height: number;
  /** Bytes per pixel (3 for RGB, 4 for RGBA). */
  channels: number;
  /** Unfiltered rows, `width * channels` bytes each. */
  rows: Uint8Array[];
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] ?? 0) * 2 ** 24 + ((bytes[offset + 1] ?? 0) << 16) + ((bytes[offset + 2] ?? 0) << 8) + (bytes[offset + 3] ?? 0);
}

export function isPng(bytes: Uint8Array): boolean {
  return SIGNATURE.every((value, index) => bytes[index] === value);
}

async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([new Uint8Array(data)]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

export async function decodePng(bytes: Uint8Array): Promise<DecodedPng> {
  if (!isPng(bytes)) throw new Error("not a PNG (signature)");
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  while (offset + 8 <= bytes.length) {
    const length = readUint32(bytes, offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = readUint32(data, 0);
      height = readUint32(data, 4);
      const bitDepth = data[8];
      const colourType = data[9];
      if (bitDepth !== 8 || (colourType !== 2 && colourType !== 6) || data[12] !== 0) {
        throw new Error(`unsupported PNG: depth ${bitDepth}, colour type ${colourType}, interlace ${data[12]}`);
      }
      channels = colourType === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const total = idat.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const part of idat) {
    joined.set(part, at);
    at += part.length;
  }
  const raw = await inflate(joined);
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`PNG data is ${raw.length} bytes, expected ${height * (stride + 1)}`);
  const rows: Uint8Array[] = [];
  let previous = new Uint8Array(stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = raw.slice(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x += 1) {
      const left = x >= channels ? (line[x - channels] ?? 0) : 0;
      const up = previous[x] ?? 0;
      const upLeft = x >= channels ? (previous[x - channels] ?? 0) : 0;
      const value = line[x] ?? 0;
      if (filter === 1) line[x] = (value + left) & 0xff;
      else if (filter === 2) line[x] = (value + up) & 0xff;
      else if (filter === 3) line[x] = (value + ((left + up) >> 1)) & 0xff;
      else if (filter === 4) line[x] = (value + paeth(left, up, upLeft)) & 0xff;
      else if (filter !== 0) throw new Error(`unknown PNG filter ${filter} on row ${y}`);
    }
    rows.push(line);
    previous = line;
  }
  return { width, height, channels, rows };
}

/** Distinct colours among the pixels (every pixel of every `step`-th row): a blank page has one or two. */
export function distinctColours(png: DecodedPng, step = 7): number {
  const seen = new Set<number>();
  for (let y = 0; y < png.height; y += step) {
    const row = png.rows[y];
    if (row === undefined) continue;
    for (let x = 0; x + 2 < row.length; x += png.channels) {
      seen.add(((row[x] ?? 0) << 16) | ((row[x + 1] ?? 0) << 8) | (row[x + 2] ?? 0));
    }
  }
  return seen.size;
}
