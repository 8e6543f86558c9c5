import { asSku, asTenantId, menuStream } from '@once/domain';
import { menuDecider } from '@once/domain/menus';
import type { MenuState, SetMenuItem, WithdrawMenuItem } from '@once/domain/menus';
import type { CommandContext, CommandOf, DecideCommandHandler } from '@once/idempotency';
import { aggregateCommand } from '../commands/aggregate-command.js';
import type { setMenuItem, withdrawMenuItem } from './menu.commands.js';

const tenantOf = (context: CommandContext) => asTenantId(context.scope.tenantId);
const at = (context: CommandContext) => context.requestedAt.toISOString();

const itemOf = (state: MenuState, sku: string) => {
  const item = state.items.get(asSku(sku));
  if (!item) throw new Error('the menu decider accepted an item but left it off the menu');
  return item;
};

/** `PUT /menu/items/:sku`: adds, reprices or renames the item on the tenant's menu (nothing when it reads so). */
export const setMenuItemHandler: DecideCommandHandler<CommandOf<typeof setMenuItem>> = aggregateCommand({
  decider: menuDecider,
  stream: (context) => menuStream(tenantOf(context)),
  command: (context): SetMenuItem => {
    const { sku, name, unitPrice, currency } = context.command;
    return {
      type: 'SetMenuItem',
      data: { tenantId: tenantOf(context), sku: asSku(sku), name, unitPrice, currency, setAt: at(context) },
    };
  },
  respond: (context, state) => {
    const item = itemOf(state, context.command.sku);
    return {
      status: 200,
      body: {
        sku: item.sku,
        name: item.name,
        unitPrice: item.unitPrice.amount,
        currency: item.unitPrice.currency,
        updatedAt: item.changedAt,
      },
    };
  },
});

/** `DELETE /menu/items/:sku`: takes the item off the menu; orders for it are refused from now on. */
export const withdrawMenuItemHandler: DecideCommandHandler<CommandOf<typeof withdrawMenuItem>> =
  aggregateCommand({
    decider: menuDecider,
    stream: (context) => menuStream(tenantOf(context)),
    command: (context): WithdrawMenuItem => ({
      type: 'WithdrawMenuItem',
      data: { tenantId: tenantOf(context), sku: asSku(context.command.sku), withdrawnAt: at(context) },
    }),
    respond: (context) => ({
      status: 200,
      body: { sku: context.command.sku, status: 'withdrawn', withdrawnAt: at(context) },
    }),
  });
