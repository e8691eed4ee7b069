// CRC-16/CCITT-FALSE as QRIS requires: poly 0x1021, init 0xFFFF, MSB-first, no final xor.

const TABLE: Uint16Array = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    }
    table[byte] = crc & 0xffff;
  }
  return table;
})();

const encoder = new TextEncoder();

/** CRC over the UTF-8 bytes, so a multibyte character counts as the bytes a scanner sees. */
export function crc16(input: string): number {
  let crc = 0xffff;
  for (const byte of encoder.encode(input)) {
    crc = ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  }
  return crc;
}

/** Always 4 upper-case digits: dropping leading zeros is a classic converter bug (1 code in 256). */
export function formatCrc(n: number): string {
  return (n & 0xffff).toString(16).toUpperCase().padStart(4, '0');
}
