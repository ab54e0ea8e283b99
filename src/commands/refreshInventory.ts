import type { CommandContext } from './context';

export function refreshInventory(ctx: CommandContext) {
  return async (): Promise<void> => {
    await ctx.inventory.reload();
  };
}
