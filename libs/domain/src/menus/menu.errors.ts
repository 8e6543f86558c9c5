import { domainError } from '../errors/index.js';
import type { Sku } from '../values/index.js';

export class MenuFull extends domainError('menu-full')<{ sku: Sku; maxItems: number }> {}
export class MenuItemNotFound extends domainError('menu-item-not-found')<{ sku: Sku }> {}
