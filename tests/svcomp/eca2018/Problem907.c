// The shape of an SV-COMP eca-rers2018 task, written for rigor's tests:
// the error functions are defined with empty bodies, so (in C, and so in
// SV-COMP) a run goes on after calling one. Hand-worked answers:
//   a: 0 --1--> 1 --1--> 2 (reach_error_0 is called at the end of that step)
//   a: 2 --2--> 3 (reach_error_1 is called)
//   a == 9 never holds.
//   b == 1 (reach_error_3) after 1 1 2 (through reach_error_0), or after
//   2 2 2 1 (a: 0 -> 5 -> 6 -> 7, then b = 1), which calls no other error
//   function first.
// unreach-call-0: false (inputs 1 1); unreach-call-1: false in C (inputs
// 1 1 2, through the call of reach_error_0) but unreachable under RERS
// semantics, where error 0 ends the run and which the expected verdicts of
// the real eca-rers2018 tasks come from: rigor answers UNKNOWN;
// unreach-call-2: true; unreach-call-3: false (the run 2 2 2 1, which
// both semantics have).
extern int __VERIFIER_nondet_int();
void reach_error_0(){}
void reach_error_1(){}
void reach_error_2(){}
void reach_error_3(){}

	// inputs
	int inputs[] = {1,2};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int a = 0;
	int b = 0;

	void errorCheck() {
	    if((a == 2)){
	    cf = 0;
	    reach_error_0();
	    }
	    if((a == 3)){
	    cf = 0;
	    reach_error_1();
	    }
	    if((a == 9)){
	    cf = 0;
	    reach_error_2();
	    }
	    if((b == 1)){
	    cf = 0;
	    reach_error_3();
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf == 1 && a == 0 && (input == 1))) {
    	cf = 0;
    	a = 1;
    }
    if((cf == 1 && a == 1 && (input == 1))) {
    	cf = 0;
    	a = 2;
    }
    if((cf == 1 && a == 2 && (input == 2))) {
    	cf = 0;
    	a = 3;
    	b = 1;
    }
    if((cf == 1 && a == 0 && (input == 2))) {
    	cf = 0;
    	a = 5;
    }
    if((cf == 1 && a == 5 && (input == 2))) {
    	cf = 0;
    	a = 6;
    }
    if((cf == 1 && a == 6 && (input == 2))) {
    	cf = 0;
    	a = 7;
    }
    if((cf == 1 && a == 7 && (input == 1))) {
    	cf = 0;
    	a = 8;
    	b = 1;
    }
    errorCheck();
}

int main()
{
    // main i/o-loop
    while(1)
    {
        // read input
        int input;
        input = __VERIFIER_nondet_int();
        // operate eca engine
        if((input != 1) && (input != 2))
          return -2;
        calculate_output(input);
    }
}
