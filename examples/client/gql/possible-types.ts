
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "Event": [
      "TokenLastTradePriceChangeEvent",
      "TokenPriceChangeEvent",
      "TrendingTokenEvent"
    ],
    "Market": [
      "LendingMarket",
      "LoopMarket",
      "PerpetualMarket",
      "PredictionMarket",
      "RewardMarket",
      "YieldMarket"
    ],
    "MutationPayload": [
      "ClearReadNotificationsPayload",
      "DeleteEmailChannelPayload",
      "DeleteTelegramChannelPayload",
      "MarkNotificationsReadPayload",
      "PrepareEmailChannelPayload",
      "PrepareTelegramChannelPayload",
      "RegisterPushDevicePayload",
      "ResendEmailVerificationPayload",
      "SendNotificationPayload",
      "SubscribeToAppsPayload",
      "UnregisterPushDevicePayload",
      "UnsubscribeFromAppsPayload",
      "VerifyEmailChannelPayload"
    ],
    "Node": [
      "Asset",
      "Channel",
      "LendingMarket",
      "LendingPosition",
      "LoopMarket",
      "LoopPosition",
      "Notification",
      "PerpetualMarket",
      "PerpetualPosition",
      "PredictionMarket",
      "PredictionPosition",
      "Provider",
      "RewardMarket",
      "RewardPosition",
      "SubscribedApp",
      "Subscriber",
      "Topic",
      "Wallet",
      "YieldMarket",
      "YieldPosition"
    ],
    "Position": [
      "LendingPosition",
      "LoopPosition",
      "PerpetualPosition",
      "PredictionPosition",
      "RewardPosition",
      "YieldPosition"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "Event": [
      "TokenLastTradePriceChangeEvent",
      "TokenPriceChangeEvent",
      "TrendingTokenEvent"
    ],
    "Market": [
      "LendingMarket",
      "LoopMarket",
      "PerpetualMarket",
      "PredictionMarket",
      "RewardMarket",
      "YieldMarket"
    ],
    "MutationPayload": [
      "ClearReadNotificationsPayload",
      "DeleteEmailChannelPayload",
      "DeleteTelegramChannelPayload",
      "MarkNotificationsReadPayload",
      "PrepareEmailChannelPayload",
      "PrepareTelegramChannelPayload",
      "RegisterPushDevicePayload",
      "ResendEmailVerificationPayload",
      "SendNotificationPayload",
      "SubscribeToAppsPayload",
      "UnregisterPushDevicePayload",
      "UnsubscribeFromAppsPayload",
      "VerifyEmailChannelPayload"
    ],
    "Node": [
      "Asset",
      "Channel",
      "LendingMarket",
      "LendingPosition",
      "LoopMarket",
      "LoopPosition",
      "Notification",
      "PerpetualMarket",
      "PerpetualPosition",
      "PredictionMarket",
      "PredictionPosition",
      "Provider",
      "RewardMarket",
      "RewardPosition",
      "SubscribedApp",
      "Subscriber",
      "Topic",
      "Wallet",
      "YieldMarket",
      "YieldPosition"
    ],
    "Position": [
      "LendingPosition",
      "LoopPosition",
      "PerpetualPosition",
      "PredictionPosition",
      "RewardPosition",
      "YieldPosition"
    ]
  }
};
      export default result;
    