import CommandGrammar

/// `reachctl --experimental-dump-help`: the command line in swift-argument-parser's ToolInfo
/// format (serialization version 0), which its `generate-manual` turns into reachctl(1) at
/// install time (Scripts/lib/manuals.sh). The package stays a build tool; reachctl links none of it.
enum ManualDescription {
    static func json(of tool: Tool) -> JSONValue {
        let commands = tool.commands.map { command in
            describe(command.name, abstract: command.abstract, discussion: command.discussion, superCommands: [tool.name],
                     arguments: command.arguments.map(describe) + (command.options + Option.standard).map(describe))
        }
        return .object([
            "serializationVersion": .number(0),
            "command": describe(tool.name, abstract: tool.abstract, discussion: tool.discussion, superCommands: nil,
                                arguments: Option.standard.map(describe), subcommands: commands, defaultSubcommand: tool.defaultCommand),
        ])
    }

    private static func describe(_ name: String, abstract: String, discussion: String, superCommands: [String]?,
                                 arguments: [JSONValue], subcommands: [JSONValue] = [], defaultSubcommand: String? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "commandName": .string(name), "abstract": .string(abstract), "discussion": .string(discussion),
            "shouldDisplay": .bool(true), "arguments": .array(arguments),
        ]
        if let superCommands { fields["superCommands"] = .array(superCommands.map(JSONValue.string)) }
        if !subcommands.isEmpty { fields["subcommands"] = .array(subcommands) }
        if let defaultSubcommand { fields["defaultSubcommand"] = .string(defaultSubcommand) }
        return .object(fields)
    }

    private static func describe(_ argument: Positional) -> JSONValue {
        .object([
            "kind": .string("positional"), "shouldDisplay": .bool(true), "isOptional": .bool(false), "isRepeating": .bool(false),
            "parsingStrategy": .string("default"), "valueName": .string(argument.name), "abstract": .string(argument.help),
        ])
    }

    private static func describe(_ option: Option) -> JSONValue {
        let names = (option.short.map { [name("short", String($0))] } ?? []) + [name("long", option.long)]
        var fields: [String: JSONValue] = [
            "kind": .string(option.isFlag ? "flag" : "option"), "shouldDisplay": .bool(true),
            "isOptional": .bool(true), "isRepeating": .bool(option.isRepeating),
            "parsingStrategy": .string(option.takesAnyWord ? "unconditional" : "default"),
            "names": .array(names), "preferredName": name("long", option.long),
            "valueName": .string(option.valueName ?? option.long), "abstract": .string(option.help),
        ]
        if let value = option.defaultValue { fields["defaultValue"] = .string(value) }
        if let values = option.allowedValues { fields["allValues"] = .array(values.map(JSONValue.string)) }
        switch option.completion {
        case .values(let values)?:
            fields["completionKind"] = .object(["list": .object(["values": .array(values.map(JSONValue.string))])])
        case .shellCommand(let command)?:
            fields["completionKind"] = .object(["shellCommand": .object(["command": .string(command)])])
        case nil:
            break
        }
        return .object(fields)
    }

    private static func name(_ kind: String, _ name: String) -> JSONValue {
        .object(["kind": .string(kind), "name": .string(name)])
    }
}
