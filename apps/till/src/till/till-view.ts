import { formatMoney, h, replaceChildren, signOutButton } from '../common/index.js';
import { cartTotal } from './order-pricing.js';
import type { QueueItem, Till } from './till-app.js';
import type { TillOrder } from './till-model.js';

const queueStateText: Record<QueueItem['state'], string> = {
  sending: 'sending',
  waiting: 'waiting its turn',
  offline: 'queued offline',
  retrying: 'retrying',
};

const header = (till: Till) =>
  h(
    'header',
    { class: 'bar' },
    h('h1', {}, 'Once till'),
    h(
      'span',
      { class: `pill ${till.sending ? 'online' : 'offline'}`, 'data-testid': 'connection' },
      till.sending ? 'Online: sending' : 'Offline: queueing',
    ),
    h(
      'label',
      { class: 'switch' },
      h('input', {
        type: 'checkbox',
        id: 'offline-switch',
        checked: till.state.offlineSwitch,
        onchange: (event) => till.setOfflineSwitch((event.target as HTMLInputElement).checked),
      }),
      ' Work offline',
    ),
    h('span', { class: 'hint' }, `queue in ${till.storageBackend}`),
    signOutButton(),
  );

const menuPanel = (till: Till) =>
  h(
    'section',
    { class: 'card menu' },
    h('h2', {}, 'Menu'),
    till.state.menu.length === 0
      ? h('p', { class: 'hint' }, 'No menu yet: the till reads it from the api when online.')
      : h(
          'div',
          { class: 'menu-grid' },
          ...till.state.menu.map((item) =>
            h(
              'button',
              { class: 'menu-item', 'data-sku': item.sku, onclick: () => till.addToCart(item) },
              h('span', { class: 'name' }, item.name),
              h('span', { class: 'price' }, formatMoney(item.unitPrice, item.currency)),
            ),
          ),
        ),
  );

const cartPanel = (till: Till) => {
  const { cart, menu } = till.state;
  const currency = menu[0]?.currency ?? 'EUR';
  return h(
    'section',
    { class: 'card cart' },
    h('h2', {}, 'New order'),
    cart.length === 0
      ? h('p', { class: 'hint' }, 'Tap items on the menu.')
      : h(
          'ul',
          { class: 'lines' },
          ...cart.map((line) => h('li', {}, `${String(line.quantity)} × ${line.name}`)),
        ),
    h(
      'p',
      { class: 'total', 'data-testid': 'cart-total' },
      `Total ${formatMoney(cartTotal(cart, menu), currency)}`,
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          class: 'primary',
          id: 'place-order',
          disabled: cart.length === 0,
          onclick: () => void till.placeOrder(),
        },
        'Place order',
      ),
      h('button', { class: 'quiet', disabled: cart.length === 0, onclick: () => till.clearCart() }, 'Clear'),
    ),
  );
};

const queuePanel = (till: Till, items: readonly QueueItem[]) =>
  h(
    'section',
    { class: 'card queue' },
    h('h2', {}, `Queue (${String(items.length)})`),
    items.length === 0
      ? h('p', { class: 'hint', 'data-testid': 'queue-empty' }, 'Nothing waiting.')
      : h(
          'ol',
          { class: 'queue-items', 'data-testid': 'queue' },
          ...items.map((item) =>
            h(
              'li',
              { 'data-state': item.state, title: `Idempotency-Key ${item.key}` },
              h('span', { class: `badge ${item.state}` }, queueStateText[item.state]),
              ` ${item.label}`,
              item.detail ? h('div', { class: 'hint' }, item.detail) : undefined,
              h('div', { class: 'key' }, item.key),
            ),
          ),
        ),
    h('h3', {}, 'Answered'),
    h(
      'ol',
      { class: 'sent-items', 'data-testid': 'sent' },
      ...till.state.sent.map((sent) =>
        h(
          'li',
          { 'data-outcome': sent.outcome, title: `Idempotency-Key ${sent.key}` },
          h('span', { class: `badge ${sent.outcome}` }, sent.outcome),
          ` ${sent.label} `,
          h('span', { class: 'hint' }, sent.detail),
        ),
      ),
    ),
  );

const invoiceLine = (order: TillOrder) => {
  const { invoice } = order;
  if (!invoice) return h('p', { class: 'hint' }, order.billKey ? 'Billing…' : 'Not billed yet');
  const settled = invoice.payments.filter((payment) => payment.status !== 'declined').length;
  return h(
    'p',
    { class: 'invoice' },
    `Paid ${formatMoney(invoice.paid, order.currency)} of ${formatMoney(invoice.total, order.currency)} · `,
    h('span', { 'data-testid': 'payments-count' }, String(settled)),
    settled === 1 ? ' payment' : ' payments',
    ...invoice.payments.map((payment) =>
      h('span', { class: `badge ${payment.status}` }, `${payment.method} ${payment.status}`),
    ),
  );
};

const orderCard = (till: Till, order: TillOrder) => {
  const canPay = Boolean(order.invoice && order.invoice.outstanding > 0 && !order.payingKey);
  return h(
    'article',
    {
      class: `card order ${order.status}`,
      'data-testid': 'order',
      'data-number': order.number,
      'data-status': order.status,
    },
    h(
      'h3',
      {},
      `Order ${String(order.number)} `,
      h('span', { class: `badge ${order.status}`, 'data-testid': 'order-status' }, order.status),
      h('span', { class: 'total' }, formatMoney(order.total ?? order.shownTotal, order.currency)),
    ),
    h(
      'p',
      { class: 'lines' },
      order.lines.map((line) => `${String(line.quantity)} × ${line.name}`).join(', '),
    ),
    order.orderId ? h('p', { class: 'key' }, order.orderId) : undefined,
    order.note
      ? h('p', { class: `note ${order.status}`, 'data-testid': 'order-note' }, order.note)
      : undefined,
    order.status === 'held'
      ? h(
          'button',
          { class: 'primary', 'data-action': 'accept', onclick: () => void till.approve(order) },
          `Accept new total ${formatMoney(order.total ?? 0, order.currency)}`,
        )
      : undefined,
    order.orderId ? invoiceLine(order) : undefined,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          'data-action': 'serve',
          disabled: order.status !== 'placed',
          onclick: () => void till.serve(order),
        },
        'Serve',
      ),
      h(
        'button',
        {
          'data-action': 'complete',
          disabled: order.status !== 'served',
          onclick: () => void till.complete(order),
        },
        'Complete',
      ),
      h(
        'button',
        { 'data-action': 'pay-cash', disabled: !canPay, onclick: () => void till.pay(order, 'cash') },
        'Pay cash',
      ),
      h(
        'button',
        { 'data-action': 'pay-card', disabled: !canPay, onclick: () => void till.pay(order, 'card') },
        'Pay card',
      ),
    ),
  );
};

/**
 * Draws the whole till into `root`: header with the offline switch, menu, new order, queue, orders.
 *
 * @example
 * till.subscribe(() => void renderTill(root, till));
 */
export const renderTill = async (root: Element, till: Till): Promise<void> => {
  const items = await till.queueItems();
  replaceChildren(
    root,
    header(till),
    h(
      'main',
      { class: 'till' },
      h('div', { class: 'column' }, menuPanel(till), cartPanel(till)),
      h(
        'div',
        { class: 'column' },
        h('h2', { class: 'section-title' }, 'Orders'),
        till.state.orders.length === 0 ? h('p', { class: 'hint' }, 'No orders yet.') : undefined,
        ...till.state.orders.map((order) => orderCard(till, order)),
      ),
      h('div', { class: 'column' }, queuePanel(till, items)),
    ),
  );
};
