// Modes with a stale variable, as in RERS 2017: the mode m picks which
// rules may fire; s is written in mode 1, kept through mode 2 unread, and
// read again by the error checks once back in mode 1. A counter c climbs
// in mode 2, so the concrete states never run out (about 2^31 values of c)
// and only the abstraction can prove a label unreachable. An abstraction
// that keys mode-2 states on their next step alone joins s there (it is
// not read in mode 2) and finds error_0 spuriously reachable; one that
// learns that s is read before written after C keeps it. Hand-worked:
//   start m=1, s=0, c=0.  A (m==1): s = 9.  B (m==1): m = 2.
//   C (m==2): m = 1.  D (m==2): c += 2.  Anything else is invalid.
//   s is 0 or 9 in every reachable state.
//   error_0: m==1 && s==7   -> unreachable.
//   error_1: m==1 && s==9 && c==2 -> reachable, shortest witness A B D C.
//   error_2: m==2 && c==4   -> reachable, shortest witness B D D.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3,4};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int m = 1;
	int s = 0;
	int c = 0;

	void errorCheck() {
	    if((m == 1 && s == 7)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((m == 1 && s == 9 && c == 2)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((m == 2 && c == 4)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && m == 1) {
    	cf = 0;
    	s = 9;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && m == 1) {
    	cf = 0;
    	m = 2;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && m == 2) {
    	cf = 0;
    	m = 1;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && m == 2) {
    	cf = 0;
    	c += (c + 20) > c ? 2 : 0;
    	printf("%d\n", 24); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3) && (input != 4))
          return -2;
        calculate_output(input);
    }
}
