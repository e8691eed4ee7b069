export { crc16, formatCrc } from './crc16.js';
export { encodeField, encodeTlv, parseTlv, type TlvField } from './tlv.js';
export {
  buildQris,
  describeQris,
  inspectQris,
  isStaticQris,
  parseQris,
  parseStaticQris,
  toDynamic,
  type ParsedQris,
  type QrisFieldDescription,
} from './qris.js';
