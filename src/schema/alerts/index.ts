// Implemented by the alerts domain.
export {};
