// Implemented by the wallets domain.
export {};
