import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { UpcastingEventStore } from '../../../src/application/versioning/UpcastingEventStore.js';
import {
  PhoneNumberReserved,
  PhoneNumberReservedV1,
  phoneReservationStream,
  upcastPhoneNumberReservedV1,
} from '../../../src/features/contacts/domain/phoneReservationEvents.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

/** The data of a `PhoneNumberReserved` version 1 (what releases up to 283063c wrote). */
const v1Data = { companyId: 'co-1', phoneNumber: '+49151000', contactId: 'c-2', at: '2026-01-01T10:00:00.000Z', takenOverFrom: 'c-1' };
const { phoneNumber: _number, ...v2Data } = v1Data;

describe('PhoneNumberReserved versions', () => {
  it('v1 → v2 (pure): the number left out, everything else kept; version 2 accepts the result', () => {
    const upcast = upcastPhoneNumberReservedV1({ type: 'PhoneNumberReserved', data: v1Data });
    expect(upcast).to.deep.equal({ type: 'PhoneNumberReserved', data: v2Data });
    expect(PhoneNumberReserved.is(upcast)).to.equal(true);
    expect(PhoneNumberReservedV1.is(upcast)).to.equal(false);
  });

  describe('read through the versioning decorator', () => {
    let dir: ReturnType<typeof tempDir>;
    let raw: SqliteEventStore;
    let store: UpcastingEventStore;
    const stream = phoneReservationStream('co-1', '+49151000');
    const metadata = { source: 'api' as const, correlationId: 'c', companyId: 'co-1' };
    beforeEach(() => {
      dir = tempDir('chronicle-phone-versions-');
      raw = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
      store = new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES });
    });
    afterEach(async () => {
      await store.close();
      dir.dispose();
    });

    it('reads a v1 event, recorded as version 1 or stored before versions were, as v2, without the number', async () => {
      await raw.append(stream, [
        { id: newId(), type: 'PhoneNumberReserved', data: v1Data, metadata: { ...metadata, schemaVersion: 1 } },
        { id: newId(), type: 'PhoneNumberReserved', data: v1Data, metadata },
      ], 'no_stream');
      const [recorded, unmarked] = await store.readStream(stream);
      expect(recorded!.data).to.deep.equal(v2Data);
      expect(recorded!.version).to.deep.equal({ current: 2, stored: 1, recorded: true });
      expect(unmarked!.data).to.deep.equal(v2Data);
      expect(unmarked!.version).to.deep.equal({ current: 2, stored: 1, recorded: false });
    });

    it('reads one stored without a version and without the number (appended below the decorator) as version 2', async () => {
      await raw.append(stream, [{ id: newId(), type: 'PhoneNumberReserved', data: v2Data, metadata }], 'no_stream');
      const [event] = await store.readStream(stream);
      expect(event!.data).to.deep.equal(v2Data);
      expect(event!.version).to.deep.equal({ current: 2, stored: 2, recorded: false });
    });

    it('records version 2 on a new event, which holds no number', async () => {
      await store.append(stream, [{ id: newId(), type: 'PhoneNumberReserved', data: v2Data, metadata }], 'no_stream');
      const [event] = await raw.readStream(stream);
      expect(event!.metadata.schemaVersion).to.equal(2);
      expect(JSON.stringify(event!.data)).not.to.include('49151000');
    });
  });
});
