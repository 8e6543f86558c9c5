export { invoiceStream, orderStream, stockCountStream, streamPrefixes } from './stream-names.js';
