export {
  requireCurrency,
  requireNonNegativeAmount,
  requirePositiveAmount,
  requireQuantity,
  requireSameCurrency,
  sumLines,
} from './money-rules.js';
