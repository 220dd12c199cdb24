fn main() {
    println!("rigor {}", env!("CARGO_PKG_VERSION"));
}
