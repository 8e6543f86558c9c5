import { describe, expect, it } from 'vitest';
import { asInvoiceId, asOrderId, asStockCountId, asTenantId } from '../values/index.js';
import { invoiceStream, menuStream, orderStream, stockCountStream, streamPrefixes } from './stream-names.js';

describe('stream names', () => {
  const tenantId = asTenantId('t1');

  it('names one stream per aggregate, scoped by tenant', () => {
    expect(invoiceStream(tenantId, asInvoiceId('inv-9'))).toBe('invoice-t1-inv-9');
    expect(orderStream(tenantId, asOrderId('o-9'))).toBe('order-t1-o-9');
    expect(stockCountStream(tenantId, asStockCountId('sc-9'))).toBe('stock-count-t1-sc-9');
    expect(menuStream(tenantId)).toBe('menu-t1');
  });

  it('starts each name with its documented prefix', () => {
    expect(invoiceStream(tenantId, asInvoiceId('x')).startsWith(streamPrefixes.invoice)).toBe(true);
    expect(orderStream(tenantId, asOrderId('x')).startsWith(streamPrefixes.order)).toBe(true);
    expect(stockCountStream(tenantId, asStockCountId('x')).startsWith(streamPrefixes.stockCount)).toBe(true);
    expect(menuStream(tenantId).startsWith(streamPrefixes.menu)).toBe(true);
  });

  it('keeps tenants apart', () => {
    expect(invoiceStream(asTenantId('a'), asInvoiceId('1'))).not.toBe(
      invoiceStream(asTenantId('b'), asInvoiceId('1')),
    );
  });
});
