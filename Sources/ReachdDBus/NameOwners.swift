/// The owners of the well-known names a connection's subscriptions follow, as the bus told
/// them: `GetNameOwner` once, then every `NameOwnerChanged`, in the order the messages arrived.
///
/// A signal names its sender by unique name only, so this table is what lets a rule's
/// `sender='org.freedesktop.NetworkManager'` be checked locally (GDBus keeps the same table since
/// its fix for CVE-2024-34397). Each name is counted by the subscriptions that use it and
/// forgotten with the last one. Confined to the connection's loop thread.
struct NameOwners {
    struct Entry {
        /// The owner, meaningful once `isKnown`.
        var owner: BusName?
        var isKnown = false
        var users = 1
        /// Tells an answer to this entry's `GetNameOwner` from one asked for an earlier entry
        /// of the same name, already forgotten.
        let generation: Int
    }

    private var entries: [BusName: Entry] = [:]
    private var generations = 0

    /// The owner of `name`; nil when it has none, is not followed, or is not known yet.
    func owner(of name: BusName) -> BusName? {
        entries[name]?.owner
    }

    /// Whether the owner of `name` is known (it may be none).
    func isKnown(_ name: BusName) -> Bool {
        entries[name]?.isKnown ?? false
    }

    func isFollowed(_ name: BusName) -> Bool {
        entries[name] != nil
    }

    /// One more user of `name`; returns the new entry's generation when `name` was not followed
    /// yet: its `NameOwnerChanged` rule and `GetNameOwner` are then due, in that order.
    mutating func retain(_ name: BusName) -> Int? {
        if entries[name] != nil {
            entries[name]!.users += 1
            return nil
        }
        generations += 1
        entries[name] = Entry(generation: generations)
        return generations
    }

    /// One user fewer; returns true when that was the last one and `name` is forgotten (its
    /// `NameOwnerChanged` rule can go).
    mutating func release(_ name: BusName) -> Bool {
        guard var entry = entries[name] else { return false }
        entry.users -= 1
        entries[name] = entry.users > 0 ? entry : nil
        return entry.users == 0
    }

    /// `GetNameOwner`'s answer for the entry of `generation`; returns whether it was taken.
    /// A `NameOwnerChanged` that arrived since asking is at least as new (the bus sends its
    /// signals and its replies in order, and the rule for it was in place before asking), so
    /// the answer is then dropped.
    mutating func answered(_ name: BusName, generation: Int, owner: BusName?) -> Bool {
        guard var entry = entries[name], entry.generation == generation, !entry.isKnown else { return false }
        entry.owner = owner
        entry.isKnown = true
        entries[name] = entry
        return true
    }

    /// A `NameOwnerChanged` from the bus; returns whether `name` is followed.
    mutating func changed(_ name: BusName, to owner: BusName?) -> Bool {
        guard var entry = entries[name] else { return false }
        entry.owner = owner
        entry.isKnown = true
        entries[name] = entry
        return true
    }
}
