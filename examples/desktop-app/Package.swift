// swift-tools-version:6.0
// An outside package that embeds Versola in a GTK 4 desktop app (see README.md here).
import Foundation
import PackageDescription

// A path dependency is named after its directory, whatever the checkout is called.
let versola = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "versola-desktop-example",
    dependencies: [.package(path: "../..")],
    targets: [
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .executableTarget(
            name: "versola-desktop-example",
            dependencies: ["CGtk", .product(name: "Versola", package: versola)]),
    ]
)
