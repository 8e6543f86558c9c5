import { createElement } from 'react';
import type { IdempotentClient } from '@once/client';
import { useIntent } from '@once/client/react';
import type { IntentState } from '@once/client/react';

const shown = (state: IntentState): string =>
  state.status === 'answered'
    ? `${state.outcome.kind} ${state.key}`
    : state.status === 'sending'
      ? `sending ${state.key}`
      : 'idle';

// A double tap is one payment; a tap after a failure sends the same payment again; "New payment" starts another.
export const PayButton = ({ client, invoiceId }: { client: IdempotentClient; invoiceId: string }) => {
  const pay = useIntent(client);
  const body = { method: 'cash', amount: 5, currency: 'EUR' };
  return createElement(
    'div',
    null,
    createElement(
      'button',
      {
        id: 'pay',
        disabled: pay.state.status === 'sending',
        onClick: () => void pay.submit({ method: 'POST', path: `/invoices/${invoiceId}/payments`, body }),
      },
      'Pay',
    ),
    createElement('button', { id: 'new', onClick: () => void pay.reset() }, 'New payment'),
    createElement('output', { id: 'state' }, shown(pay.state)),
  );
};
