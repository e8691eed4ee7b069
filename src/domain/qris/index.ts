export { crc16, formatCrc } from './crc16.js';
export { encodeField, encodeTlv, isTemplateTag, parseTlv, type TlvField } from './tlv.js';
export {
  MAX_DYNAMIC_AMOUNT,
  MAX_QRIS_LENGTH,
  buildQris,
  describeQris,
  parseQris,
  parseStaticQris,
  toDynamic,
  type ParsedQris,
  type QrisFieldDescription,
} from './qris.js';
