import type { PushDevice } from '../../../models/index.js';
import { builder } from '../../builder.js';
import { isUuid } from '../inputs.js';
import { CLIENT_MUTATION_ID, INPUT, outcome, viewerPayload } from './common.js';
import { attempt } from './user-errors.js';
import { Problems } from './validate.js';

/** The mobile push channel: registering and unregistering a device's FCM token. */

const FCM_TOKEN_MAX = 4096;
const DEVICE_ID_MAX = 256;

function pushDeviceInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      fcmToken: t.string({ required: true, description: `The device's Firebase Cloud Messaging token (1–${FCM_TOKEN_MAX} characters).` }),
      deviceId: t.string({ description: `Your id of the device (1–${DEVICE_ID_MAX} characters).` }),
      appId: t.string({ description: 'Limit to one app (a UUID); omitted: every app.' }),
      clientMutationId: t.string({ description: CLIENT_MUTATION_ID }),
    }),
  });
}

function checkPushDevice(input: { fcmToken: string; deviceId?: string | null; appId?: string | null }): PushDevice | Problems {
  const problems = new Problems();
  if (input.fcmToken.length < 1 || input.fcmToken.length > FCM_TOKEN_MAX) {
    problems.add(`fcmToken is 1–${FCM_TOKEN_MAX} characters.`, ['fcmToken']);
  }
  const deviceId = input.deviceId ?? null;
  if (deviceId !== null && (deviceId.length < 1 || deviceId.length > DEVICE_ID_MAX)) {
    problems.add(`deviceId is 1–${DEVICE_ID_MAX} characters.`, ['deviceId']);
  }
  const appId = input.appId ?? null;
  if (appId !== null && !isUuid(appId)) problems.add("appId is an app's UUID; omit it for every app.", ['appId']);
  if (!problems.empty) return problems;
  return { fcmToken: input.fcmToken, ...(deviceId !== null ? { deviceId } : {}), ...(appId !== null ? { appId } : {}) };
}

function pushMutation(field: string, Name: string, registering: boolean): void {
  builder.mutationField(field, (t) =>
    t.field({
      type: viewerPayload(`${Name}Payload`, `The result of \`${field}\`.`),
      description: registering
        ? 'Registers a mobile device for push notifications (the mobile push channel), for every app or one.'
        : 'Stops push notifications to a device, for every app or one.',
      args: {
        input: t.arg({
          type: pushDeviceInput(`${Name}Input`, registering ? 'The device to notify.' : 'The device to stop notifying.'),
          required: true,
          description: INPUT,
        }),
      },
      resolve: async (_root, { input }, ctx) => {
        ctx.alerts.requireSubscriber();
        const device = checkPushDevice(input);
        if (device instanceof Problems) return outcome(input, device.list);
        const result = await attempt(
          () => (registering ? ctx.alerts.registerPushDevice(device) : ctx.alerts.unregisterPushDevice(device)),
          { UNPROCESSABLE: { code: 'UNKNOWN_APP', field: ['appId'] } },
        );
        return outcome(input, result.ok ? [] : result.userErrors);
      },
    }),
  );
}

pushMutation('registerPushDevice', 'RegisterPushDevice', true);
pushMutation('unregisterPushDevice', 'UnregisterPushDevice', false);
