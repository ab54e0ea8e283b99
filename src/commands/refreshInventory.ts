import { defineCommand } from './context';

export const refreshInventory = defineCommand({}, (ctx) => {
  return async (): Promise<void> => {
    await ctx.inventory.reload();
  };
});
