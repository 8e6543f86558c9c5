import type { Decider } from '../decider/index.js';
import { ChunkedMap } from '../decider/index.js';
import {
  requireCurrency,
  requireNonNegativeAmount,
  requirePositiveAmount,
  requireQuantity,
  requireSameCurrency,
  sumLines,
} from '../rules/index.js';
import { money } from '../values/index.js';
import type { CustomerRef, InvoiceId, Money, PaymentId, TenantId } from '../values/index.js';
import type {
  InvoiceCommand,
  InvoiceLine,
  IssueInvoice,
  RecordCardCharge,
  RecordPayment,
  ReserveCardPayment,
} from './invoice.commands.js';
import {
  CardChargeAlreadyRecorded,
  CardReservationNotFound,
  EmptyInvoice,
  InvoiceAlreadyIssued,
  InvoiceNotFound,
  PaymentAlreadyRecorded,
  PaymentExceedsBalance,
} from './invoice.errors.js';
import type {
  CardPaymentCaptured,
  CardPaymentDeclined,
  InvoiceEvent,
  InvoiceIssued,
} from './invoice.events.js';

/** Where one payment on the invoice stands. */
export type InvoicePayment =
  | { readonly status: 'recorded'; readonly amount: number; readonly method: 'cash' | 'card' }
  | { readonly status: 'reserved'; readonly amount: number }
  | { readonly status: 'captured'; readonly amount: number; readonly gatewayReference: string }
  | {
      readonly status: 'declined';
      readonly amount: number;
      readonly gatewayReference: string;
      readonly reason: string;
    };

export interface IssuedInvoice {
  readonly status: 'issued';
  readonly tenantId: TenantId;
  readonly invoiceId: InvoiceId;
  readonly customerRef: CustomerRef;
  readonly total: Money;
  /** Minor units paid: cash and terminal payments plus captured card payments. */
  readonly paid: number;
  /** Minor units held by card payments waiting for the gateway. */
  readonly reserved: number;
  readonly payments: ChunkedMap<PaymentId, InvoicePayment>;
}

export type InvoiceState = { readonly status: 'none' } | IssuedInvoice;

/** A stream with no events: no invoice yet. */
export const initialState = (): InvoiceState => ({ status: 'none' });

/**
 * What can still be paid: total − paid − reserved.
 * @example outstandingBalance(invoice).amount // 750
 */
export const outstandingBalance = (invoice: IssuedInvoice): Money =>
  money(invoice.total.amount - invoice.paid - invoice.reserved, invoice.total.currency);

const requireIssued = (state: InvoiceState, invoiceId: InvoiceId): IssuedInvoice => {
  if (state.status === 'none') throw new InvoiceNotFound({ invoiceId });
  return state;
};

const issue = ({ data }: IssueInvoice, state: InvoiceState): InvoiceIssued => {
  if (state.status !== 'none') throw new InvoiceAlreadyIssued({ invoiceId: data.invoiceId });
  const currency = requireCurrency(data.currency);
  let total: number;
  let lines: readonly InvoiceLine[] = [];
  if ('lines' in data) {
    if (data.lines.length === 0) throw new EmptyInvoice({ invoiceId: data.invoiceId });
    data.lines.forEach((line, index) => {
      requireQuantity(`lines/${index}/quantity`, line.quantity);
      requireNonNegativeAmount(`lines/${index}/unitPrice`, line.unitPrice);
    });
    lines = data.lines;
    total = requirePositiveAmount('total', sumLines('total', lines));
  } else {
    total = requirePositiveAmount('total', data.total);
  }
  return {
    type: 'InvoiceIssued',
    data: {
      tenantId: data.tenantId,
      invoiceId: data.invoiceId,
      customerRef: data.customerRef,
      lines,
      total: money(total, currency),
      issuedAt: data.issuedAt,
    },
  };
};

/** The guards every new payment passes: a fresh id, a positive amount, the invoice's currency, within the balance. */
const admitPayment = (invoice: IssuedInvoice, paymentId: PaymentId, amount: Money): Money => {
  if (invoice.payments.has(paymentId)) {
    throw new PaymentAlreadyRecorded({ invoiceId: invoice.invoiceId, paymentId });
  }
  requirePositiveAmount('amount', amount.amount);
  requireSameCurrency(invoice.total.currency, amount);
  const outstanding = outstandingBalance(invoice);
  if (amount.amount > outstanding.amount) {
    throw new PaymentExceedsBalance({ invoiceId: invoice.invoiceId, paymentId, amount, outstanding });
  }
  return money(amount.amount, invoice.total.currency);
};

const recordPayment = ({ data }: RecordPayment, state: InvoiceState): InvoiceEvent => {
  const invoice = requireIssued(state, data.invoiceId);
  const amount = admitPayment(invoice, data.paymentId, data.amount);
  return {
    type: 'PaymentRecorded',
    data: {
      tenantId: invoice.tenantId,
      invoiceId: invoice.invoiceId,
      paymentId: data.paymentId,
      amount,
      method: data.method,
      recordedAt: data.recordedAt,
    },
  };
};

const reserveCardPayment = ({ data }: ReserveCardPayment, state: InvoiceState): InvoiceEvent => {
  const invoice = requireIssued(state, data.invoiceId);
  const amount = admitPayment(invoice, data.paymentId, data.amount);
  return {
    type: 'CardPaymentReserved',
    data: {
      tenantId: invoice.tenantId,
      invoiceId: invoice.invoiceId,
      paymentId: data.paymentId,
      amount,
      reservedAt: data.reservedAt,
    },
  };
};

const isSameCharge = (payment: InvoicePayment, { data }: RecordCardCharge): boolean => {
  if (payment.status === 'captured') {
    return data.outcome.status === 'approved' && payment.gatewayReference === data.gatewayReference;
  }
  if (payment.status === 'declined') {
    return data.outcome.status === 'declined' && payment.gatewayReference === data.gatewayReference;
  }
  return false;
};

/** An outcome recorded a second time (the webhook after the synchronous answer) is accepted and adds nothing. */
const recordCardCharge = (
  command: RecordCardCharge,
  state: InvoiceState,
): readonly (CardPaymentCaptured | CardPaymentDeclined)[] => {
  const { data } = command;
  const invoice = requireIssued(state, data.invoiceId);
  const payment = invoice.payments.get(data.paymentId);
  const ids = { tenantId: invoice.tenantId, invoiceId: invoice.invoiceId, paymentId: data.paymentId };
  if (payment === undefined || payment.status === 'recorded') {
    throw new CardReservationNotFound({ invoiceId: invoice.invoiceId, paymentId: data.paymentId });
  }
  if (payment.status === 'captured' || payment.status === 'declined') {
    if (isSameCharge(payment, command)) return [];
    throw new CardChargeAlreadyRecorded({
      invoiceId: invoice.invoiceId,
      paymentId: data.paymentId,
      recorded: payment.status,
      gatewayReference: payment.gatewayReference,
    });
  }
  const amount = money(payment.amount, invoice.total.currency);
  const { outcome } = data;
  if (outcome.status === 'approved') {
    return [
      {
        type: 'CardPaymentCaptured',
        data: { ...ids, amount, gatewayReference: data.gatewayReference, capturedAt: data.recordedAt },
      },
    ];
  }
  return [
    {
      type: 'CardPaymentDeclined',
      data: {
        ...ids,
        amount,
        gatewayReference: data.gatewayReference,
        reason: outcome.reason,
        declinedAt: data.recordedAt,
      },
    },
  ];
};

/**
 * Decides an invoice command against the invoice's state; throws a `DomainError` when a rule forbids it.
 *
 * @param command - IssueInvoice, RecordPayment, ReserveCardPayment or RecordCardCharge.
 * @param state - the fold of the invoice stream.
 * @returns the events to append (none when a card outcome is repeated).
 * @example
 * decide({ type: 'RecordPayment', data: { invoiceId, paymentId, amount: money(500, 'EUR'), method: 'cash', recordedAt } }, state);
 */
export const decide = (command: InvoiceCommand, state: InvoiceState): readonly InvoiceEvent[] => {
  switch (command.type) {
    case 'IssueInvoice':
      return [issue(command, state)];
    case 'RecordPayment':
      return [recordPayment(command, state)];
    case 'ReserveCardPayment':
      return [reserveCardPayment(command, state)];
    case 'RecordCardCharge':
      return recordCardCharge(command, state);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
};

const withPayment = (invoice: IssuedInvoice, paymentId: PaymentId, payment: InvoicePayment) =>
  invoice.payments.with(paymentId, payment);

/**
 * Folds one invoice event into the state. Events that cannot apply (a payment before the invoice) leave it as is.
 * @example const state = events.reduce(evolve, initialState());
 */
export const evolve = (state: InvoiceState, event: InvoiceEvent): InvoiceState => {
  if (event.type === 'InvoiceIssued') {
    const { tenantId, invoiceId, customerRef, total } = event.data;
    return {
      status: 'issued',
      tenantId,
      invoiceId,
      customerRef,
      total,
      paid: 0,
      reserved: 0,
      payments: ChunkedMap.empty(),
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'PaymentRecorded': {
      const { paymentId, amount, method } = event.data;
      return {
        ...state,
        paid: state.paid + amount.amount,
        payments: withPayment(state, paymentId, { status: 'recorded', amount: amount.amount, method }),
      };
    }
    case 'CardPaymentReserved': {
      const { paymentId, amount } = event.data;
      return {
        ...state,
        reserved: state.reserved + amount.amount,
        payments: withPayment(state, paymentId, { status: 'reserved', amount: amount.amount }),
      };
    }
    case 'CardPaymentCaptured': {
      const { paymentId, amount, gatewayReference } = event.data;
      return {
        ...state,
        paid: state.paid + amount.amount,
        reserved: state.reserved - amount.amount,
        payments: withPayment(state, paymentId, {
          status: 'captured',
          amount: amount.amount,
          gatewayReference,
        }),
      };
    }
    case 'CardPaymentDeclined': {
      const { paymentId, amount, gatewayReference, reason } = event.data;
      return {
        ...state,
        reserved: state.reserved - amount.amount,
        payments: withPayment(state, paymentId, {
          status: 'declined',
          amount: amount.amount,
          gatewayReference,
          reason,
        }),
      };
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The invoice decider: invoices, cash and terminal payments, and card payments through the gateway. */
export const decider: Decider<InvoiceCommand, InvoiceEvent, InvoiceState> = { decide, evolve, initialState };
