fn main() {
    println!("taskc");
}
