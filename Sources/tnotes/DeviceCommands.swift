import ArgumentParser
import TNotesCLIRender
import TNotesCore

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices of your sync account, or revoke one (a lost laptop).",
        discussion: """
            Each device has a token of its own. A revoked device stops syncing at once and keeps its data.
            Example:
              tnotes devices
              tnotes devices revoke 01a22666-b27f-74ab-891a-51ac0ef65e0c
            """,
        subcommands: [List.self, Revoke.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the account's devices (* marks this one).")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try Session(global).run(DevicesList.self, NoParams()) { json in
                let items = json["items"]?.arrayValue ?? []
                if items.isEmpty { return "no devices" }
                var table = Table(columns: [.init(title: ""), .init(title: "ID"), .init(title: "NAME"), .init(title: "PAIRED"),
                                            .init(title: "LAST SEEN")])
                for d in items {
                    table.rows.append([
                        d["current"]?.boolValue == true ? "*" : "", d["id"]?.stringValue ?? "",
                        Format.oneLine(d["name"]?.stringValue ?? ""), d["createdAt"]?.stringValue ?? "",
                        d["lastSeenAt"]?.stringValue ?? "never",
                    ])
                }
                return table.render(style: .stdout)
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a device: its token stops working at once.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The device's id (tnotes devices).") var id: String

        func run() throws {
            try Session(global).run(DevicesRevoke.self, IdParams(id: id)) { _ in "revoked device \(id)" }
        }
    }
}
